import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// The payload the push service stores and the device link carries for a web push message (docs/web-push.md, "What is
/// stored").
@Suite("Web push: the stored message", .tier(.unit))
struct WebPushStoredMessageTests {
    @Test("a message comes back as it was: body byte for byte, coding, urgency, TTL, a subject with quotes and controls")
    func roundTrip() throws {
        let body = (0...255).map(UInt8.init) + [UInt8](repeating: 0xFF, count: 3840)
        let message = WebPushStoredMessage(
            encoding: .aes128gcm,
            body: body,
            urgency: .veryLow,
            ttl: WebPushTTL(seconds: 2_592_000),
            subject: "mailto:\"ops\"\\\u{1}@example.com"
        )
        let payload = message.payload
        #expect(payload.count <= WebPushStoredMessage.maximumPayloadLength)
        #expect(try JSONParser.parse(payload).dictionaryValue?[WebPushStoredMessage.member] != nil, "a JSON object")
        #expect(WebPushStoredMessage(payload: payload) == message)
    }

    @Test("an empty push has no coding and no body; a subject over 255 bytes is cut at a character")
    func emptyAndLongSubject() throws {
        let empty = WebPushStoredMessage(encoding: nil, body: [], urgency: .normal, ttl: .zero)
        #expect(String(decoding: empty.payload, as: UTF8.self).contains(#""encoding":null,"body":"""#))
        #expect(WebPushStoredMessage(payload: empty.payload) == empty)
        let long = WebPushStoredMessage(
            encoding: .aes128gcm,
            body: [1],
            urgency: .high,
            ttl: .zero,
            subject: "mailto:" + String(repeating: "é", count: 200)
        )
        let subject = try #require(long.subject)
        #expect(subject.utf8.count <= WebPushStoredMessage.maximumSubjectLength && subject.hasSuffix("é"))
    }

    @Test(
        "anything else is not a stored message",
        arguments: [
            #"{"aps":{"alert":"hi"}}"#, #"{"web_push_message":{"body":"!!","urgency":"normal","ttl":1}}"#,
            #"{"web_push_message":{"body":"","urgency":"soon","ttl":1}}"#,
            #"{"web_push_message":{"encoding":"gzip","body":"","urgency":"normal","ttl":1}}"#,
            #"{"web_push_message":{"encoding":1,"body":"","urgency":"normal","ttl":1}}"#, "[]", "not json",
        ]
    )
    func notAMessage(text: String) {
        #expect(WebPushStoredMessage(payload: Array(text.utf8)) == nil)
    }

    @Test("a payload over 8192 bytes is not read")
    func oversize() {
        let padded = #"{"web_push_message":{"body":"","urgency":"normal","ttl":1},"x":""# + String(repeating: "a", count: 8200) + #""}"#
        #expect(WebPushStoredMessage(payload: Array(padded.utf8)) == nil)
    }

    @Test("urgency decides the stored priority: high and normal at once, low in bursts, very-low at power-saving priority")
    func priorities() {
        #expect(WebPushUrgency.allCases.map(\.apnsPriority) == [1, 5, 10, 10])
    }
}
