import Foundation
import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldDeviceLink

@Suite("Device link: JSON text writing and member lookup", .tier(.unit))
struct JSONTextTests {
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
        let reader = try JSONFrameReader(Array(text.utf8))
        let context = DeviceLinkError(code: .malformedFrame, message: "")
        #expect(try reader.rawObject("payload", context: context) == Array(#"{"k":"}"}"#.utf8))
        #expect(try reader.optionalRawObject("missing", context: context) == nil)
        #expect(throws: DeviceLinkError.self) { try reader.rawObject("s", context: context) }
    }

    @Test("integers stay below 9 × 10^15 in magnitude, as every JSON reader keeps them exactly")
    func integerBounds() throws {
        let context = DeviceLinkError(code: .malformedFrame, message: "")
        let reader = try JSONFrameReader(
            Array(#"{"ok":8999999999999999,"low":-8999999999999999,"big":9000000000000000,"neg":-9000000000000000}"#.utf8)
        )
        #expect(try reader.optionalInteger("ok", context: context) == 8_999_999_999_999_999)
        #expect(try reader.optionalInteger("low", context: context) == -8_999_999_999_999_999)
        #expect(throws: DeviceLinkError.self) { try reader.optionalInteger("big", context: context) }
        #expect(throws: DeviceLinkError.self) { try reader.optionalInteger("neg", context: context) }
    }

    @Test("Int.min and Int.max are refused like any integer out of bounds (Int.min used to trap in the reader)")
    func integerExtremes() throws {
        let context = DeviceLinkError(code: .malformedFrame, message: "")
        let reader = try JSONFrameReader(Array(#"{"min":-9223372036854775808,"max":9223372036854775807}"#.utf8))
        #expect(throws: DeviceLinkError.self) { try reader.optionalInteger("min", context: context) }
        #expect(throws: DeviceLinkError.self) { try reader.optionalInteger("max", context: context) }
        // The input as a server frame: the device's reader answers with an error instead of stopping.
        let frame = #"{"type":"activity-token-retired","id":"a2","token":"9a0cffeeddccbbaa99887766554433221100","at":-9223372036854775808}"#
        #expect(serverDecodingError(frame)?.code == .malformedFrame)
    }
}
