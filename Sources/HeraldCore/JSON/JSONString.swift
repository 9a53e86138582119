/// Writes a Swift string as a JSON string literal (RFC 8259 §7): Herald's one JSON escaper, for the frames, traces,
/// tokens and API answers it writes by hand.
///
/// `"` and `\` get a backslash; line feed, carriage return and tab their short escapes; other control characters
/// `\u00XX` (lowercase hex). Everything else, non-ASCII included, is written as its UTF-8 bytes: a Swift string
/// holds Unicode scalars only, so there is no lone surrogate to escape.
public enum JSONString {
    /// Appends `string` to `text`, quoted and escaped.
    public static func append(_ string: String, to text: inout String) {
        // Most values (ids, tokens, reasons) need no escaping: appended whole.
        guard string.utf8.contains(where: needsEscaping) else {
            text += "\""
            text += string
            text += "\""
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 8)
        append(string, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string` to `bytes` as UTF-8, quoted and escaped.
    public static func append(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        guard utf8.contains(where: needsEscaping) else {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `string` as a JSON string literal, quoted and escaped.
    public static func quoted(_ string: String) -> String {
        var text = ""
        append(string, to: &text)
        return text
    }

    /// Whether a UTF-8 code unit is escaped: a quote, a backslash or a control character.
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
