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
}
