/// Writes a Swift string as a JSON string literal (RFC 8259 §7), for the small hand-written JSON texts of traces.
package enum JSONString {
    /// Appends `string` to `text`, quoted and escaped: `"` and `\` with a backslash, line feed, carriage return and tab
    /// by their short escapes, other control characters as `\u00XX`.
    package static func append(_ string: String, to text: inout String) {
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

    /// Whether a UTF-8 code unit is escaped: a quote, a backslash or a control character.
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
