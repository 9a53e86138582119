import HeraldTestTiers
import HeraldWebPush
import Testing

@Suite("Web push Topic header (RFC 8030 §5.4)", .tier(.unit))
struct WebPushTopicTests {
    @Test("32 URL-safe base64 characters are a topic")
    func longestTopic() throws {
        let value = String(repeating: "aZ0-_", count: 6) + "xy"
        #expect(value.count == 32)
        #expect(try #require(WebPushTopic(value)).value == value)
    }

    @Test(
        "empty, 33 characters, padding, a space or the standard alphabet's + and / are refused",
        arguments: [
            "", String(repeating: "a", count: 33), "abc=", "a b", "a+b", "a/b", "é",
        ]
    )
    func refused(value: String) {
        #expect(WebPushTopic(value) == nil)
    }
}
