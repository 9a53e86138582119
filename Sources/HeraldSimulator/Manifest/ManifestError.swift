import Foundation

/// Why a device manifest was refused: which field, and what is wrong with it.
///
/// `field` is a path into the JSON document (`apps[0].categories[1].actions[0].options`), so a
/// person can find the line to fix; ``description`` is the one-line message a CLI prints.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. The set can grow; match on the static constants.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidJSON, missingField, wrongType, invalidValue, unknownField, duplicate, codeNotSupplied
        }

        private let base: Base

        /// The document is not JSON (or not an object at the top).
        public static let invalidJSON = Code(base: .invalidJSON)
        /// A required field is absent.
        public static let missingField = Code(base: .missingField)
        /// A field has the wrong JSON type.
        public static let wrongType = Code(base: .wrongType)
        /// A field has a value outside the allowed set or range.
        public static let invalidValue = Code(base: .invalidValue)
        /// A field the manifest format does not have (often a typo).
        public static let unknownField = Code(base: .unknownField)
        /// An identifier that must be unique appears twice.
        public static let duplicate = Code(base: .duplicate)
        /// The manifest names Swift code (`"code": "…"`) that the host did not supply.
        public static let codeNotSupplied = Code(base: .codeNotSupplied)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// The path of the field, `""` for the whole document.
    public let field: String
    /// What is wrong, for a person.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, field: String, reason: String) {
        self.code = code
        self.field = field
        self.reason = reason
    }

    /// `field: reason`, or the reason alone for the whole document.
    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }

    /// The manifest path of a coding path: `apps[0].categories[1].identifier`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// Translates the decoder's error into one naming the field.
    static func translating(_ error: DecodingError) -> ManifestError {
        switch error {
        case .keyNotFound(let key, let context):
            return ManifestError(.missingField, field: path(context.codingPath + [key]), reason: "required field is missing")
        case .typeMismatch(let type, let context):
            return ManifestError(.wrongType, field: path(context.codingPath), reason: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return ManifestError(.wrongType, field: path(context.codingPath), reason: "expected \(typeName(type)), found null")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return ManifestError(.invalidJSON, field: "", reason: "the manifest is not valid JSON")
        case .dataCorrupted(let context):
            return ManifestError(.invalidValue, field: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return ManifestError(.invalidJSON, field: "", reason: "\(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
