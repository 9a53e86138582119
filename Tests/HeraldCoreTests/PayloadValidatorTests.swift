import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("Payload rules", .tier(.unit))
struct PayloadValidatorTests {
    let validator = PayloadValidator()

    private func check(_ text: String, _ pushType: PushType = .alert) -> Result<APNSPayload, APNSReason> {
        validator.validate(Array(text.utf8), pushType: pushType)
    }

    @Test("an alert payload is read into its aps fields and custom keys")
    func readsAlert() throws {
        let payload = try check(
            #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":2,"sound":"default","thread-id":"t","category":"c","mutable-content":1},"sender":"42"}"#
        ).get()
        #expect(payload.alert?.title == "T")
        #expect(payload.alert?.subtitle == "S")
        #expect(payload.alert?.body == "B")
        #expect(payload.badge == 2)
        #expect(payload.sound?.name == "default")
        #expect(payload.threadID == "t")
        #expect(payload.category == "c")
        #expect(payload.mutableContent)
        #expect(!payload.contentAvailable)
        #expect(payload.customKeys["sender"]?.stringValue == "42")
    }

    @Test("empty and whitespace bodies are PayloadEmpty")
    func empty() {
        #expect(check("") == .failure(.payloadEmpty))
        #expect(check("  \n") == .failure(.payloadEmpty))
    }

    @Test("size limits: 4096 bytes, 5120 for VoIP")
    func sizeLimits() {
        let filler = { (count: Int) in #"{"aps":{"alert":""# + String(repeating: "x", count: count) + #""}}"# }
        let overhead = filler(0).utf8.count
        #expect((try? check(filler(4096 - overhead)).get()) != nil)
        #expect(check(filler(4097 - overhead)) == .failure(.payloadTooLarge))
        #expect((try? check(filler(5120 - overhead), .voip).get()) != nil)
        #expect(check(filler(5121 - overhead), .voip) == .failure(.payloadTooLarge))
    }

    @Test("a body that is not a JSON object gets the policy's reason")
    func notAnObject() {
        #expect(check("[1]") == .failure(.payloadEmpty))
        #expect(check("{bad") == .failure(.payloadEmpty))
        #expect(check(#"{"aps":"x"}"#) == .failure(.payloadEmpty))
        var policy = ValidationPolicy()
        policy.malformedPayloadReason = .badTopic
        #expect(PayloadValidator(policy: policy).validate(Array("[1]".utf8), pushType: .alert) == .failure(.badTopic))
    }

    @Test("a background push carries content-available and no alert, sound or badge")
    func backgroundRules() {
        #expect((try? check(#"{"aps":{"content-available":1},"x":1}"#, .background).get())?.isSilent == true)
        #expect(check(#"{"aps":{"content-available":1,"alert":"hi"}}"#, .background) == .failure(.invalidPushType))
        #expect(check(#"{"aps":{"content-available":1,"badge":1}}"#, .background) == .failure(.invalidPushType))
        #expect(check(#"{"aps":{"content-available":1,"sound":"a"}}"#, .background) == .failure(.invalidPushType))
        #expect(check(#"{"aps":{}}"#, .background) == .failure(.invalidPushType))
    }
}

extension Result where Success == APNSPayload, Failure == APNSReason {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.success(let a), .success(let b)): a == b
        case (.failure(let a), .failure(let b)): a == b
        default: false
        }
    }
}
