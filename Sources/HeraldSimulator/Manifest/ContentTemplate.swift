import Foundation
import HeraldUserNotifications

/// A text with placeholders, such as `"{name}: {body}"`, filled in from a notification by the
/// built-in extensions.
///
/// Placeholders: `{title}`, `{subtitle}`, `{body}`, `{category}`, `{thread}` (the content as it
/// is at that step), `{payload.KEY}` (a payload value; `KEY` is a key or a dotted path such as
/// `aps.from`), and, in a `rewrite` step with a `key`, `{name}` (the looked-up name) and `{value}`
/// (the payload value itself). `{{` and `}}` write literal braces. A template is checked when the
/// manifest is read, so an unknown placeholder is a manifest error, never a blank at run time.
public struct ContentTemplate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Why a template cannot be used.
    public struct Invalid: Error, Sendable, Hashable {
        /// The reason.
        public let reason: String
    }

    enum Segment: Sendable, Hashable {
        case literal(String)
        case placeholder(String)
    }

    /// The template as written.
    public let text: String
    let segments: [Segment]

    /// The placeholders every template may use.
    static let contentPlaceholders: Set<String> = ["title", "subtitle", "body", "category", "thread"]

    /// Parses a template; `extraPlaceholders` are the context's own names (`name`, `value`).
    public init(_ text: String, extraPlaceholders: Set<String> = []) throws {
        try self.init(text, names: Self.contentPlaceholders.union(extraPlaceholders), prefixes: ["payload."])
    }

    /// Parses a template whose placeholders are `names` or a key under one of `prefixes` (`{state.minutes}`).
    init(_ text: String, names: Set<String>, prefixes: [String]) throws {
        self.text = text
        segments = try Self.parse(text)
        for case .placeholder(let name) in segments {
            guard names.contains(name) || prefixes.contains(where: { name.hasPrefix($0) }) else {
                let allowed = (names.sorted() + prefixes.map { $0 + "KEY" }).map { "{\($0)}" }
                throw Invalid(reason: "unknown placeholder {\(name)}; allowed: \(allowed.joined(separator: ", "))")
            }
            if let prefix = prefixes.first(where: { name == $0 }) {
                throw Invalid(reason: "{\(prefix)} needs a key, as in {\(prefix)KEY}")
            }
        }
    }

    /// The template as written.
    public var description: String { text }

    /// A template that is one placeholder, `{name}`.
    static func placeholder(_ name: String) -> ContentTemplate {
        ContentTemplate(text: "{\(name)}", segments: [.placeholder(name)])
    }

    private init(text: String, segments: [Segment]) {
        self.text = text
        self.segments = segments
    }

    /// The placeholders used, in order.
    var placeholders: [String] {
        segments.compactMap {
            if case .placeholder(let name) = $0 { return name }
            return nil
        }
    }

    /// Fills in the template; `value(name)` answers each placeholder (`nil` writes nothing).
    func render(_ value: (String) -> String?) -> String {
        segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .placeholder(let name): value(name) ?? ""
            }
        }.joined()
    }

    /// Fills in the template from content and its payload, plus extra values.
    func render(content: NotificationContentValue, extra: [String: String] = [:]) -> String {
        render { name in
            switch name {
            case "title": content.title
            case "subtitle": content.subtitle
            case "body": content.body
            case "category": content.categoryIdentifier
            case "thread": content.threadIdentifier
            default:
                if let value = extra[name] {
                    value
                } else if name.hasPrefix("payload.") {
                    PayloadPath.value(at: String(name.dropFirst("payload.".count)), in: content.userInfo).map(PayloadPath.text)
                } else {
                    nil
                }
            }
        }
    }

    private static func parse(_ text: String) throws -> [Segment] {
        var segments: [Segment] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "{" {
                if next < text.endIndex && text[next] == "{" {
                    literal.append("{")
                    index = text.index(after: next)
                    continue
                }
                guard let close = text[next...].firstIndex(of: "}") else { throw Invalid(reason: "a \"{\" is not closed in \"\(text)\"") }
                let name = String(text[next..<close])
                guard !name.isEmpty, !name.contains("{") else { throw Invalid(reason: "an empty or nested placeholder in \"\(text)\"") }
                if !literal.isEmpty { segments.append(.literal(literal)) }
                literal = ""
                segments.append(.placeholder(name))
                index = text.index(after: close)
            } else if character == "}" {
                guard next < text.endIndex && text[next] == "}" else { throw Invalid(reason: "a lone \"}\" in \"\(text)\" (write }} for a brace)") }
                literal.append("}")
                index = text.index(after: next)
            } else {
                literal.append(character)
                index = next
            }
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        return segments
    }

    /// Encodes the text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Decodes the text, allowing only the content placeholders (contexts with more names decode
    /// the string and call ``init(_:extraPlaceholders:)``).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch let error as Invalid {
            throw ManifestError(.invalidValue, field: ManifestError.path(decoder.codingPath), reason: error.reason)
        }
    }
}

/// Finds values in a payload by key or dotted path.
enum PayloadPath {
    /// The value under `path`: the member with that exact name if there is one, otherwise the
    /// dotted path (`aps.from`) through nested objects.
    static func value(at path: String, in payload: [String: JSONValue]) -> JSONValue? {
        if let value = payload[path] { return value }
        var current: JSONValue? = .object(payload)
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            current = current?.objectValue?[String(part)]
        }
        return current
    }

    /// A value as text: strings as they are, numbers and booleans as JSON writes them, `null` as
    /// nothing, arrays and objects as JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return ""
        case .array, .object:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
}
