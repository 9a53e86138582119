import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("JSON parser", .tier(.unit))
struct JSONParserTests {
    @Test("parses objects, arrays, strings with escapes and numbers")
    func parsesDocument() throws {
        let text = #"{"aps":{"alert":"Hi \u00e9\n","badge":3},"list":[1,-2.5e1,true,false,null],"s":"\ud83d\ude00"}"#
        let value = try JSONParser.parse(Array(text.utf8))
        let root = try #require(value.objectValue)
        #expect(root["aps"]?.objectValue?["alert"]?.stringValue == "Hi é\n")
        #expect(root["aps"]?.objectValue?["badge"]?.integerValue == 3)
        #expect(root["list"]?.arrayValue == [.int(1), .double(-25), .bool(true), .bool(false), .null])
        #expect(root["s"]?.stringValue == "😀")
        #expect(root.memberNames == ["aps", "list", "s"])
    }

    @Test(
        "rejects malformed documents",
        arguments: [
            "", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\u{01}\"", "{} x", "nul", "\"\\ud800\"",
        ]
    )
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test("limits nesting depth")
    func limitsDepth() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(deep.utf8)) }
        let shallow = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect((try? JSONParser.parse(Array(shallow.utf8))) != nil)
    }

    @Test("a duplicate key keeps the last value")
    func duplicateKeys() throws {
        let value = try JSONParser.parse(Array(#"{"a":1,"a":2}"#.utf8))
        #expect(value.objectValue?["a"]?.integerValue == 2)
    }

    @Test(
        "an integer literal that fits Int is .int; a fraction, an exponent, -0 or a larger integer is .double",
        arguments: [
            ("0", JSONValue.int(0)), ("42", .int(42)), ("-7", .int(-7)), ("9223372036854775807", .int(Int.max)),
            ("-9223372036854775808", .int(Int.min)), ("9223372036854775808", .double(9.223372036854775808e18)),
            ("-9223372036854775809", .double(-9.223372036854775808e18)), ("1.0", .double(1)), ("1e2", .double(100)),
            ("-2.5E-1", .double(-0.25)), ("-0", .double(-0.0)),
        ]
    )
    func numbers(_ text: String, _ expected: JSONValue) throws {
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(value == expected)
        #expect(value.doubleValue?.sign == expected.doubleValue?.sign)
    }
}
