import Foundation

/// A property-list/JSON value that can cross concurrency domains.
///
/// `userInfo` dictionaries (`[AnyHashable: Any]`) and APNs payloads are stored as `JSONValue`
/// so that requests and notifications are `Sendable`. Values that are not JSON or property-list
/// types (arbitrary objects) are dropped when converted, as Apple only accepts property-list
/// types in `userInfo`.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null` / `NSNull`.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// A dictionary with string keys.
    case object([String: JSONValue])

    /// Converts a Foundation value (as produced by `JSONSerialization` or written by hand in
    /// a `userInfo` literal); returns `nil` for values that are not JSON or property-list types.
    public init?(any value: Any) {
        switch value {
        case is NSNull:
            self = .null
        case let bool as Bool where type(of: value) == Bool.self:
            self = .bool(bool)
        case let number as NSNumber where type(of: value) != Int.self && type(of: value) != Double.self:
            let kind = String(cString: number.objCType)
            if kind == "c" || kind == "B" {
                self = .bool(number.boolValue)
            } else if kind == "d" || kind == "f" {
                self = .double(number.doubleValue)
            } else {
                self = .int(number.intValue)
            }
        case let int as Int:
            self = .int(int)
        case let double as Double:
            self = .double(double)
        case let float as Float:
            self = .double(Double(float))
        case let string as String:
            self = .string(string)
        case let url as URL:
            self = .string(url.absoluteString)
        case let date as Date:
            self = .double(date.timeIntervalSince1970)
        case let data as Data:
            self = .string(data.base64EncodedString())
        case let array as [Any]:
            self = .array(array.compactMap { JSONValue(any: $0) })
        case let dictionary as [String: Any]:
            self = .object(dictionary.compactMapValues { JSONValue(any: $0) })
        case let dictionary as [AnyHashable: Any]:
            self = .object(JSONValue.stringKeyed(dictionary))
        default:
            return nil
        }
    }

    /// Converts a `userInfo`-style dictionary; keys that are not strings are written with
    /// their description, values that are not JSON types are dropped.
    public static func stringKeyed(_ dictionary: [AnyHashable: Any]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in dictionary {
            let name = (key.base as? String) ?? String(describing: key.base)
            if let converted = JSONValue(any: value) {
                result[name] = converted
            }
        }
        return result
    }

    /// The Foundation value (`String`, `Int`, `Double`, `Bool`, `[Any]`, `[String: Any]`, `NSNull`).
    public var anyValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.anyValue)
        case .object(let values): values.mapValues(\.anyValue) as [String: Any]
        }
    }

    /// The dictionary, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int` (booleans count as 0/1, doubles are truncated).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value.rounded(.towardZero))
        case .bool(let value): value ? 1 : 0
        case .string(let value): Int(value)
        default: nil
        }
    }

    /// The number as a `Double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The array, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Encodes as plain JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Decodes plain JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

extension [String: JSONValue] {
    /// The dictionary as a `userInfo` value.
    var userInfoValue: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in self {
            result[key] = value.anyValue
        }
        return result
    }
}
