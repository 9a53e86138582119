import HeraldTestTiers
import HeraldUserNotifications
import Testing

@testable import HeraldCLI

/// `herald device`'s text lines: what a person reads, not raw JSON (`--json` keeps the JSON).
@Suite("herald device: text output", .tier(.unit))
struct DeviceOutputTests {
    @Test("a payload reads as its alert's words, badge, sound, category; a silent push says so")
    func payloadSummary() {
        let alert: JSONValue = [
            "aps": ["alert": ["title": "Hello", "body": "from Herald"], "badge": 3, "sound": "default", "category": "message"]
        ]
        #expect(DeviceOutput.summary(ofPayload: alert) == "“Hello” · “from Herald”, badge 3, sound, category message")
        #expect(DeviceOutput.summary(ofPayload: ["aps": ["alert": "Hi"]]) == "“Hi”")
        #expect(DeviceOutput.summary(ofPayload: ["aps": ["content-available": 1], "refresh": "inbox"]) == "silent (content-available)")
        #expect(DeviceOutput.summary(ofPayload: ["aps": ["alert": ["title": "A"], "mutable-content": 1]]) == "“A”, mutable-content")
        #expect(DeviceOutput.summary(ofPayload: ["custom": 1]) == "(no aps)")
        #expect(DeviceOutput.summary(ofPayload: "not json") == "(no aps)")
    }

    @Test("a report's detail reads as key=value words, in key order; nested values are named, nulls and empty strings left out")
    func reportWords() {
        let detail: [String: JSONValue] = [
            "title": .string("A photo"), "presentation": .array([.string("list"), .string("banner")]), "priority": .int(10),
            "inNotificationCenter": .bool(true), "attachments": .object(["a": .int(1)]), "thread": .null, "subtitle": .string(""),
        ]
        #expect(
            DeviceOutput.words(detail) == "attachments={…} inNotificationCenter=true presentation=list,banner priority=10 title=“A photo”"
        )
        #expect(DeviceOutput.words([:]) == "")
    }
}
