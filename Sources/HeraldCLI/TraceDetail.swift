import HeraldCore

/// A trace event's detail (a JSON object's text) for people: `title "Hello", presentation [list, banner], priority 10`,
/// members in the order the server wrote them, without the ones that say nothing (`null`, `""`, `[]`, `{}`).
///
/// Why not the JSON: a device's `displayed` report is one object of a dozen members, unreadable on one line as raw
/// text (issue 37, item 15); `herald trace --json` keeps the JSON.
enum TraceDetail {
    /// The readable form of `json`; text that is not a JSON object is returned as it is.
    static func readable(_ json: String) -> String {
        guard let value = try? JSONParser.parse(Array(json.utf8)), case .object(let object) = value else { return json }
        return members(object)
    }

    /// `value` as compact JSON text, members in their order.
    static func json(_ value: JSONValue) -> String {
        value.jsonText()
    }

    private static func members(_ object: JSONObject) -> String {
        object.members.compactMap { member in
            isEmpty(member.value) ? nil : "\(member.key) \(text(member.value))"
        }
        .joined(separator: ", ")
    }

    private static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .array(let elements): elements.isEmpty
        case .object(let object): object.isEmpty
        case .string(let string): string.isEmpty
        default: false
        }
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): word(value)
        case .array(let elements): "[" + elements.map(text).joined(separator: ", ") + "]"
        case .object(let object): "{" + members(object) + "}"
        }
    }

    /// A string as it is when it reads as one word, else quoted as JSON quotes it.
    private static func word(_ string: String) -> String {
        let plain =
            !string.isEmpty
            && string.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./:@+#".unicodeScalars.contains(scalar)
            }
        return plain ? string : JSONString.quoted(string)
    }
}
