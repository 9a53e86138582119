import Foundation
import HeraldCore
import HeraldTestTiers
import Testing

@Suite("JSON text writing and member lookup", .tier(.unit))
struct JSONTextTests {
    /// A caller's error, as a device-link error or a web error is.
    struct MemberError: JSONMemberError, Equatable {
        var message: String
        func with(message: String) -> MemberError { MemberError(message: message) }
    }

    let context = MemberError(message: "")

    @Test("strings are escaped so that any text reads back the same")
    func escaping() throws {
        let tricky = "quote\" backslash\\ newline\n tab\t cr\r bell\u{7} nul\u{0} é 😀 /"
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("s", tricky)
        writer.member("n", Int64?.none)
        writer.member("b", false)
        writer.key("a")
        writer.beginArray()
        writer.integer(-5)
        writer.string("x")
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(object["s"] as? String == tricky)
        #expect(object["n"] is NSNull)
        #expect(object["b"] as? Bool == false)
        #expect(String(decoding: writer.bytes, as: UTF8.self).hasSuffix(#""n":null,"b":false,"a":[-5,"x",{}]}"#))
    }

    @Test("a member's bytes are found at the top level only, the last one winning")
    func memberSpan() throws {
        let text = #"{"a":{"payload":1},"s":"\"payload\":","payload" : [1, {"x":"]"}] ,"payload":{"k":"}"}}"#
        let reader = try JSONObjectReader(Array(text.utf8))
        #expect(try reader.rawObject("payload", context: context) == Array(#"{"k":"}"}"#.utf8))
        #expect(try reader.optionalRawObject("missing", context: context) == nil)
        #expect(throws: MemberError(message: #""s" must be a JSON object"#)) { try reader.rawObject("s", context: context) }
    }

    @Test("integers stay below 9 × 10^15 in magnitude, as every JSON reader keeps them exactly")
    func integerBounds() throws {
        let reader = try JSONObjectReader(
            Array(#"{"ok":8999999999999999,"low":-8999999999999999,"big":9000000000000000,"neg":-9000000000000000}"#.utf8)
        )
        #expect(try reader.optionalInteger("ok", context: context) == 8_999_999_999_999_999)
        #expect(try reader.optionalInteger("low", context: context) == -8_999_999_999_999_999)
        #expect(throws: MemberError.self) { try reader.optionalInteger("big", context: context) }
        #expect(throws: MemberError.self) { try reader.optionalInteger("neg", context: context) }
    }

    @Test("Int.min and Int.max are refused like any integer out of bounds (Int.min used to trap in the reader)")
    func integerExtremes() throws {
        let reader = try JSONObjectReader(Array(#"{"min":-9223372036854775808,"max":9223372036854775807}"#.utf8))
        #expect(throws: MemberError.self) { try reader.optionalInteger("min", context: context) }
        #expect(throws: MemberError.self) { try reader.optionalInteger("max", context: context) }
    }

    @Test("text that is not one JSON object is refused, saying whether it is JSON at all")
    func notAnObject() {
        #expect(throws: JSONObjectReader.Failure.self) { try JSONObjectReader(Array("[1]".utf8)) }
        #expect((try? JSONObjectReader(Array("[1]".utf8))) == nil)
        do {
            _ = try JSONObjectReader(Array("{".utf8))
            Issue.record("an unterminated object was read")
        } catch {
            #expect(error.parseFailure != nil)
        }
    }
}
