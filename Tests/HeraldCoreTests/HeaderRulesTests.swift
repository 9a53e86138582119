import Foundation
import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("Header and path rules", .tier(.unit))
struct HeaderRulesTests {
    private func head(_ fields: [(String, String)]) -> ProviderRequestHead {
        var head = ProviderRequestHead()
        for (name, value) in fields { head.add(name: name, value: value) }
        return head
    }

    private func values(_ fields: [(String, String)], policy: ValidationPolicy = ValidationPolicy()) -> Result<ProviderHeaderValues, APNSReason> {
        ProviderHeaderValues.parse(head(fields), policy: policy, nowSeconds: 1_700_000_000)
    }

    @Test("paths: device token, missing token, channel paths, other")
    func paths() {
        #expect(head([(":path", "/3/device/abcd")]).pathTarget == .device("abcd"))
        #expect(head([(":path", "/3/device/abcd?x=1")]).pathTarget == .device("abcd"))
        #expect(head([(":path", "/3/device/")]).pathTarget == .missingToken)
        #expect(head([(":path", "/3/device")]).pathTarget == .missingToken)
        #expect(head([(":path", "/3/devices/abcd")]).pathTarget == .other)
        #expect(head([(":path", "/2/device/abcd")]).pathTarget == .other)
        #expect(head([(":path", "/3/device/a/b")]).pathTarget == .other)
        #expect(head([(":path", "/1/apps/com.example.app/channels")]).pathTarget == .channels(bundleID: "com.example.app"))
        #expect(head([(":path", "/1/apps/com.example.app/channel")]).pathTarget == .otherAppPath)
        #expect(head([(":path", "/1/apps/com.example.app")]).pathTarget == .otherAppPath)
        #expect(head([(":path", "/1/apps")]).pathTarget == .otherAppPath)
        #expect(head([(":path", "/1/applications/x/channels")]).pathTarget == .other)
    }

    @Test("a repeated apns header is a duplicate; other headers are ignored")
    func duplicates() {
        #expect(head([("apns-topic", "a"), ("apns-topic", "b")]).hasDuplicates)
        #expect(!head([("user-agent", "a"), ("user-agent", "b")]).hasDuplicates)
        #expect(head([("APNS-Topic", "a"), ("apns-topic", "b")]).hasDuplicates)
    }

    @Test("apns-id must be a canonical UUID")
    func apnsID() {
        #expect(values([("apns-id", "not-a-uuid")]).failureReason == .badMessageId)
        #expect(values([("apns-id", "123e4567-e89b-12d3-a456-4266141740000")]).failureReason == .badMessageId)
        #expect(values([("apns-id", "123e4567-e89b-12d3-a456-426614174000")]).failureReason == nil)
        #expect(values([("apns-id", "123E4567-E89B-12D3-A456-426614174000")]).failureReason == nil)
    }

    @Test("priority: 10, 5 and 1 only; background must not be 10")
    func priority() {
        #expect(values([("apns-priority", "7")]).failureReason == .badPriority)
        #expect(values([("apns-priority", "high")]).failureReason == .badPriority)
        #expect(values([("apns-priority", "1")]).failureReason == nil)
        #expect(values([("apns-push-type", "background"), ("apns-priority", "10")]).failureReason == .badPriority)
        #expect(values([("apns-push-type", "background"), ("apns-priority", "5")]).failureReason == nil)
    }

    @Test("push type must be one Apple documents")
    func pushType() {
        #expect(values([("apns-push-type", "banner")]).failureReason == .invalidPushType)
        for type in PushType.allKnown {
            #expect(values([("apns-push-type", type.rawValue)]).failureReason == nil)
        }
    }

    @Test("expiration: a non-negative integer; past dates only when the policy says")
    func expiration() {
        #expect(values([("apns-expiration", "soon")]).failureReason == .badExpirationDate)
        #expect(values([("apns-expiration", "-1")]).failureReason == .badExpirationDate)
        #expect(values([("apns-expiration", "0")]).failureReason == nil)
        #expect(values([("apns-expiration", "1")]).failureReason == nil)
        var strict = ValidationPolicy()
        strict.rejectPastExpiration = true
        #expect(values([("apns-expiration", "1")], policy: strict).failureReason == .badExpirationDate)
    }

    @Test("collapse id is at most 64 bytes")
    func collapseID() {
        #expect(values([("apns-collapse-id", String(repeating: "a", count: 64))]).failureReason == nil)
        #expect(values([("apns-collapse-id", String(repeating: "a", count: 65))]).failureReason == .badCollapseId)
        #expect(values([("apns-collapse-id", String(repeating: "é", count: 33))]).failureReason == .badCollapseId)
    }

    @Test("topics: suffix rules per push type")
    func topics() {
        #expect(Topic.resolve("com.example.app", pushType: .alert).success?.1 == "com.example.app")
        #expect(Topic.resolve("com.example.app.voip", pushType: .voip).success?.1 == "com.example.app")
        #expect(Topic.resolve("com.example.app", pushType: .voip).failure == .invalidPushType)
        #expect(Topic.resolve("com.example.app.voip", pushType: .alert).failure == .invalidPushType)
        #expect(Topic.resolve("com.example.app.voip", pushType: nil).success?.0 == .voip)
        #expect(Topic.resolve("com.example.app.push-type.liveactivity", pushType: .liveactivity).success?.1 == "com.example.app")
        #expect(Topic.resolve("bad topic", pushType: .alert).failure == .badTopic)
        #expect(Topic.resolve("", pushType: .alert).failure == .badTopic)
    }

    @Test("device tokens: even-length hex, folded to lowercase")
    func deviceTokens() {
        #expect(DeviceToken(hex: "ABCDEF0123456789")?.hex == "abcdef0123456789")
        #expect(DeviceToken(hex: "abc") == nil)
        #expect(DeviceToken(hex: "zz" + String(repeating: "0", count: 62)) == nil)
        #expect(DeviceToken.random().hex.count == 64)
        // 16 to 200 digits, even; every byte checked, wherever it is; a substring of a longer text.
        #expect(DeviceToken(hex: String(repeating: "A", count: 16))?.hex == String(repeating: "a", count: 16))
        #expect(DeviceToken(hex: String(repeating: "f", count: 200))?.hex.count == 200)
        #expect(DeviceToken(hex: String(repeating: "0", count: 14)) == nil)
        #expect(DeviceToken(hex: String(repeating: "0", count: 202)) == nil)
        #expect(DeviceToken(hex: String(repeating: "0", count: 63) + "g") == nil)
        #expect(DeviceToken(hex: String(repeating: "0", count: 62) + "G0") == nil)
        #expect(DeviceToken(hex: String(repeating: "0", count: 62) + "@0") == nil)
        let path = "/3/device/" + String(repeating: "Ab", count: 32)
        #expect(DeviceToken(hex: path.dropFirst(10))?.hex == String(repeating: "ab", count: 32))
    }

    @Test("reasons carry Apple's statuses")
    func statuses() {
        #expect(APNSReason.badDeviceToken.status == 400)
        #expect(APNSReason.invalidProviderToken.status == 403)
        #expect(APNSReason.badPath.status == 404)
        #expect(APNSReason.methodNotAllowed.status == 405)
        #expect(APNSReason.unregistered.status == 410)
        #expect(APNSReason.payloadTooLarge.status == 413)
        #expect(APNSReason.tooManyRequests.status == 429)
        #expect(APNSReason.internalServerError.status == 500)
        #expect(APNSReason.shutdown.status == 503)
    }
}

extension Result {
    var failureReason: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
    var failure: Failure? { failureReason }
    var success: Success? { try? get() }
}

@Suite("Notification identifiers", .tier(.unit))
struct NotificationIDTests {
    @Test("the key is the lowercase form: the text itself when already lowercase, lowered otherwise")
    func key() throws {
        let upper = try #require(NotificationID("6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A"))
        #expect(upper.key == "6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a")
        #expect(upper.text == "6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A")
        let mixed = try #require(NotificationID("6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4A"))
        #expect(mixed.key == "6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a")
        let lower = NotificationID.timeOrdered()
        #expect(lower.key == lower.text)
        #expect(lower.key == lower.text.lowercased())
    }

    @Test("identifiers are equal when their texts are; a decoded one keys like a parsed one")
    func equalityAndDecoding() throws {
        let text = "6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A"
        let parsed = try #require(NotificationID(text))
        let decoded = try JSONDecoder().decode([NotificationID].self, from: Data("[\"\(text)\"]".utf8))
        #expect(decoded == [parsed])
        #expect(decoded.first?.key == text.lowercased())
        #expect(Set([parsed, decoded[0], try #require(NotificationID(text.lowercased()))]).count == 2)
        #expect(parsed != NotificationID(text.lowercased()))
    }

    @Test("random identifiers are lowercase version-4 UUIDs and differ, across several refills of the random pool")
    func randomIDs() {
        let ids = (0..<2000).map { _ in NotificationID.random().text }
        #expect(Set(ids).count == 2000)
        for id in ids {
            let characters = Array(id)
            #expect(NotificationID(id) != nil)
            #expect(id == id.lowercased())
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }

    @Test("time-ordered identifiers are lowercase version-7 UUIDs that start with the Unix time in milliseconds")
    func timeOrderedIDs() {
        var generator = PooledRandomGenerator()
        let milliseconds: Int64 = 1_795_000_000_123
        let ids = (0..<1000).map { _ in NotificationID.timeOrdered(unixMilliseconds: milliseconds, using: &generator).text }
        #expect(Set(ids).count == 1000)
        for id in ids {
            let characters = Array(id)
            #expect(NotificationID(id) != nil)
            #expect(id == id.lowercased())
            #expect(String(characters[0..<8]) + String(characters[9..<13]) == String(milliseconds, radix: 16).leftPadded(to: 12))
            #expect(characters[14] == "7")
            #expect("89ab".contains(characters[19]))
        }
        let now = SystemWallClock().nowMilliseconds()
        let current = Array(NotificationID.timeOrdered().text)
        let stamped = Int64(String(current[0..<8]) + String(current[9..<13]), radix: 16) ?? 0
        #expect(abs(stamped - now) < 60_000)
    }

    @Test("time-ordered identifiers made in later milliseconds sort after earlier ones, as text")
    func timeOrderedSort() {
        var generator = PooledRandomGenerator()
        let start: Int64 = 1_795_000_000_000
        let ids = (0..<2000).map { step in
            NotificationID.timeOrdered(unixMilliseconds: start + Int64(step) * 7, using: &generator).text
        }
        #expect(ids.sorted() == ids)
        #expect(GeneratedIDFormat.timeOrdered.make().text.count == 36)
        #expect(Array(GeneratedIDFormat.random.make().text)[14] == "4")
    }

    @Test("the pooled generator's draws differ from one refill to the next and their bits are balanced")
    func pooledGenerator() {
        var generator = PooledRandomGenerator()
        let draws = (0..<4096).map { _ in generator.next() }
        #expect(Set(draws).count == draws.count)
        // 64 bits a draw, half of them set on average; over 4096 draws the mean is 32 ± 0.06 (one standard deviation).
        let meanSetBits = Double(draws.reduce(0) { $0 + $1.nonzeroBitCount }) / Double(draws.count)
        #expect(abs(meanSetBits - 32) < 0.5, "\(meanSetBits)")
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
