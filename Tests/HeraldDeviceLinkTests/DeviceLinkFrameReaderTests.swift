import HeraldTestTiers
import Testing

@testable import HeraldDeviceLink

@Suite("Device link: a frame that is not one JSON object", .tier(.unit))
struct DeviceLinkFrameReaderTests {
    @Test("text that is not JSON, or JSON that is not an object, is a malformed frame that says which")
    func notAnObject() {
        #expect(decodingError("{")?.message.hasPrefix("the frame is not valid JSON: ") == true)
        #expect(decodingError("[1]") == DeviceLinkError(code: .malformedFrame, message: "the frame must be a JSON object"))
    }

    @Test("Int.min in a server frame: the device's reader answers with an error instead of stopping")
    func integerExtremes() {
        let frame = #"{"type":"activity-token-retired","id":"a2","token":"9a0cffeeddccbbaa99887766554433221100","at":-9223372036854775808}"#
        #expect(serverDecodingError(frame)?.code == .malformedFrame)
    }
}
