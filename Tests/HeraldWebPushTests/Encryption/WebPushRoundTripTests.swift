import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldWebPush

@Suite("Web push encryption: random messages and record sizes round trip", .tier(.unit))
struct WebPushRoundTripTests {
    typealias Fixtures = AES128GCMFixtures

    private static let manyRecords = AES128GCMRules(keyID: .uncompressedP256Point, maximumRecordCount: 10_000, maximumBodySize: 1 << 20)

    @Test("0 to 3993 octets in one record of rs 4096: at most the 4096 octets a push service takes")
    func oneRecord() throws {
        var generator = SeededGenerator(state: 8291)
        let keys = WebPushSubscriptionKeys()
        for length in [0, 1, 2, 3992, 3993] + (0..<60).map({ _ in Int.random(in: 0...3993, using: &generator) }) {
            let plaintext = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let body = try WebPushEncryption.encrypt(plaintext, p256dh: keys.p256dh, auth: keys.auth)
            #expect(body.count == 86 + length + 17)
            #expect(try AES128GCMLayout(parsing: body, rules: .webPush).recordCount == 1)
            #expect(try keys.decrypt(body) == plaintext, "length \(length)")
        }
    }

    @Test("random lengths, record sizes and padding, in as many records as they need")
    func recordSizesAndPadding() throws {
        var generator = SeededGenerator(state: 8188)
        let keys = WebPushSubscriptionKeys()
        for _ in 0..<80 {
            let length = Int.random(in: 0...3993, using: &generator)
            let recordSize = Int.random(in: 18...4200, using: &generator)
            let padding = Int.random(in: 0...200, using: &generator)
            let plaintext = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let body = try WebPushEncryption.encrypt(plaintext, p256dh: keys.p256dh, auth: keys.auth, recordSize: recordSize, padding: padding)
            let layout = try AES128GCMLayout(parsing: body, rules: Self.manyRecords)
            #expect(layout.recordCount == max(1, (length + padding + recordSize - 18) / (recordSize - 17)))
            #expect(body.count == 86 + length + padding + 17 * layout.recordCount)
            #expect(try keys.decrypt(body, rules: Self.manyRecords) == plaintext, "length \(length), rs \(recordSize), padding \(padding)")
        }
    }

    @Test("a message that fills its records exactly, and padding alone in the last record")
    func recordBoundaries() throws {
        let keys = WebPushSubscriptionKeys()
        for (length, padding) in [(8, 0), (16, 0), (8, 8), (0, 8), (7, 9), (0, 0)] {
            let plaintext = [UInt8](repeating: 0x7A, count: length)
            let body = try WebPushEncryption.encrypt(plaintext, p256dh: keys.p256dh, auth: keys.auth, recordSize: 25, padding: padding)
            #expect(try keys.decrypt(body, rules: Self.manyRecords) == plaintext, "length \(length), padding \(padding)")
        }
    }

    @Test("the RFC 8188 coding alone: random keys, lengths and record sizes")
    func contentCoding() throws {
        var generator = SeededGenerator(state: 2017)
        for _ in 0..<40 {
            let inputKeyingMaterial = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let plaintext = (0..<Int.random(in: 0...2000, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let header = AES128GCMHeader(salt: salt, recordSize: UInt32.random(in: 18...600, using: &generator), keyID: Array("key".utf8))
            let body = AES128GCM.encrypt(
                plaintext,
                padding: Int.random(in: 0...50, using: &generator),
                header: header,
                key: AES128GCMKey(inputKeyingMaterial: inputKeyingMaterial, salt: salt)
            )
            #expect(try AES128GCM.decrypt(body, inputKeyingMaterial: inputKeyingMaterial, rules: .rfc8188(maximumRecordCount: 1000)) == plaintext)
        }
    }

    @Test("each message has a fresh salt and sender key")
    func freshSaltAndKey() throws {
        let keys = WebPushSubscriptionKeys()
        let first = try WebPushEncryption.encrypt(Fixtures.plaintext, p256dh: keys.p256dh, auth: keys.auth)
        let second = try WebPushEncryption.encrypt(Fixtures.plaintext, p256dh: keys.p256dh, auth: keys.auth)
        #expect(first.prefix(16) != second.prefix(16))
        #expect(first[21..<86] != second[21..<86])
    }

    @Test("keys made at random have a 65-octet p256dh and a 16-octet auth, and read back from their octets")
    func keys() throws {
        let keys = WebPushSubscriptionKeys()
        #expect(Fixtures.bytes(keys.p256dh).count == 65)
        #expect(Fixtures.bytes(keys.auth).count == 16)
        let stored = try #require(WebPushSubscriptionKeys(privateKey: keys.privateKeyBytes, authSecret: keys.authSecret))
        #expect(stored.p256dh == keys.p256dh)
        #expect(WebPushSubscriptionKeys(privateKey: keys.privateKeyBytes, authSecret: Array(keys.authSecret.prefix(15))) == nil)
        #expect(WebPushSubscriptionKeys(privateKey: [1, 2, 3], authSecret: keys.authSecret) == nil)
    }

    @Test("keys and parameters that cannot be used are refused with what was given")
    func encryptionErrors() {
        let keys = WebPushSubscriptionKeys()
        var offCurve = keys.publicKey
        offCurve[64] ^= 1
        #expect(refusal(p256dh: "not base64!", auth: keys.auth) == .invalidP256DH)
        #expect(refusal(p256dh: String(keys.p256dh.dropLast(2)), auth: keys.auth) == .invalidP256DH)
        #expect(refusal(p256dh: Base64URL.encode(offCurve), auth: keys.auth) == .invalidP256DH)
        #expect(refusal(p256dh: keys.p256dh, auth: "BTBZMqHH6r4Tts7J_aSI") == .invalidAuthSecret)
        #expect(refusal(p256dh: keys.p256dh, auth: "a*b") == .invalidAuthSecret)
        #expect(refusal(p256dh: keys.p256dh, auth: keys.auth, salt: [1, 2, 3]) == .invalidSalt)
        #expect(refusal(p256dh: keys.p256dh, auth: keys.auth, recordSize: 17) == .invalidRecordSize)
        #expect(refusal(p256dh: keys.p256dh, auth: keys.auth, recordSize: 1 << 32) == .invalidRecordSize)
        #expect(refusal(p256dh: keys.p256dh, auth: keys.auth, padding: -1) == .invalidPadding)
    }

    /// Encrypts Appendix A's plaintext with these parameters, and checks the error's one-line description.
    private func refusal(p256dh: String, auth: String, salt: [UInt8]? = nil, recordSize: Int = 4096, padding: Int = 0) -> WebPushEncryptionError? {
        do {
            _ = try WebPushEncryption.encrypt(Fixtures.plaintext, p256dh: p256dh, auth: auth, salt: salt, recordSize: recordSize, padding: padding)
            return nil
        } catch {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
            return error
        }
    }
}
