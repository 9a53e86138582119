import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("JSON string literals", .tier(.unit))
struct JSONStringTests {
    @Test(
        "Quotes, backslashes and control characters are escaped; the parser reads back the same string",
        arguments: [
            "com.example.app", "", "a\"b", "back\\slash", "line\nfeed\r\ttab", "bell\u{7}nul\u{0}esc\u{1B}", "résumé-🔔",
        ]
    )
    func roundTrip(string: String) throws {
        var text = ""
        JSONString.append(string, to: &text)
        #expect(text.first == "\"" && text.last == "\"")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        #expect(try JSONParser.parse(Array(text.utf8)) == .string(string))
    }

    @Test("The escapes are the short ones where JSON has them, \\u00XX otherwise")
    func escapes() {
        var text = ""
        JSONString.append("\"\\\n\r\t\u{1}\u{1F}", to: &text)
        #expect(text == #""\"\\\n\r\t\u0001\u001f""#)
    }

    @Test("every control character is escaped: the short escapes for \\n, \\r and \\t, \\u00xx in lowercase for the rest")
    func everyControlCharacter() throws {
        for value in UInt8(0)..<0x20 {
            let scalar = String(UnicodeScalar(value))
            let expected: String
            switch value {
            case 0x0A: expected = #""\n""#
            case 0x0D: expected = #""\r""#
            case 0x09: expected = #""\t""#
            default: expected = "\"\\u00" + (value < 0x10 ? "0" : "") + String(value, radix: 16) + "\""
            }
            #expect(JSONString.quoted(scalar) == expected)
            #expect(try JSONParser.parse(Array(expected.utf8)) == .string(scalar))
        }
    }

    @Test("non-ASCII, DEL and the line and paragraph separators are written as their UTF-8 bytes, unescaped")
    func nonASCII() {
        for text in ["é", "写评论", "🔔", "\u{7F}", "\u{2028}\u{2029}", "\u{FEFF}"] {
            #expect(JSONString.quoted(text) == "\"" + text + "\"")
        }
    }

    @Test("the String and byte forms write the same text", arguments: ["plain", "a\"b\\c\nd\u{1}é🔔", "", "\u{0}"])
    func bytesAndString(_ string: String) {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        JSONString.append(string, to: &bytes)
        var text = "["
        JSONString.append(string, to: &text)
        #expect(bytes == Array(text.utf8))
        #expect(JSONString.quoted(string) == String(text.dropFirst()))
    }
}
