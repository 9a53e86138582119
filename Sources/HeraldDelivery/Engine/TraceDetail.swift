import HeraldCore

/// Writes the detail of a trace event: the text of a flat JSON object with camelCase keys.
///
/// A tiny encoder rather than `JSONSerialization`: the engine writes a detail for every notification it
/// sends, the values are only strings, integers and booleans, and the key order stays as written.
enum TraceDetail {
    /// A field's value.
    enum Value: Hashable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    /// The JSON text of an object with these fields, in order; `nil` values are left out.
    static func object(_ fields: KeyValuePairs<String, Value?>) -> String {
        var text = "{"
        var first = true
        for (key, value) in fields {
            guard let value else { continue }
            if !first { text += "," }
            first = false
            JSONString.append(key, to: &text)
            text += ":"
            switch value {
            case .string(let string): JSONString.append(string, to: &text)
            case .int(let number): text += String(number)
            case .bool(let flag): text += flag ? "true" : "false"
            }
        }
        return text + "}"
    }
}
