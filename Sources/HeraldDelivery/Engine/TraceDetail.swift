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
            appendString(key, to: &text)
            text += ":"
            switch value {
            case .string(let string): appendString(string, to: &text)
            case .int(let number): text += String(number)
            case .bool(let flag): text += flag ? "true" : "false"
            }
        }
        return text + "}"
    }

    private static func appendString(_ string: String, to text: inout String) {
        text += "\""
        // Most values (ids, tokens, reasons) need no escaping: appended whole, not scalar by scalar.
        guard string.utf8.contains(where: needsEscaping) else {
            text += string
            text += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Whether a UTF-8 code unit is escaped: a quote, a backslash or a control character (JSON, RFC 8259 §7).
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
