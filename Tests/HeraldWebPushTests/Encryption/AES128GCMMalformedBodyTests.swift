import HeraldTestTiers
import Testing

@testable import HeraldWebPush

@Suite("aes128gcm: every malformed body is refused with what was wrong", .tier(.unit))
struct AES128GCMMalformedBodyTests {
    typealias Fixtures = AES128GCMFixtures

    /// Decrypts `body` as the user agent of Appendix A, and checks the error's one-line description.
    private func refusal(_ body: [UInt8], rules: AES128GCMRules = .webPush) -> AES128GCMError? {
        do {
            _ = try Fixtures.userAgentKeys.decrypt(body, rules: rules)
            return nil
        } catch {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
            return error
        }
    }

    @Test("an empty body")
    func empty() {
        #expect(refusal([]) == .emptyBody)
        #expect(throws: AES128GCMError.emptyBody) { try AES128GCMHeader(parsing: [UInt8](), rules: .rfc8188()) }
    }

    @Test("a body cut anywhere in its 86-octet header", arguments: 1..<86)
    func truncatedHeader(length: Int) {
        #expect(refusal(Array(Fixtures.body.prefix(length))) == .truncatedHeader)
    }

    @Test("the header parser reads only its own octets, and the layout refuses a body by its length alone")
    func bounded() throws {
        // 2^40 octets of 0x20: rs 0x20202020, idlen 32. Reading them all would not end.
        let endless = repeatElement(UInt8(0x20), count: 1 << 40)
        let header = try AES128GCMHeader(parsing: endless, rules: .rfc8188())
        #expect(header.recordSize == 0x2020_2020)
        #expect(header.encodedLength == 21 + 32)
        #expect(throws: AES128GCMError.bodyTooLarge) { try AES128GCMLayout(parsing: endless, rules: .rfc8188()) }
    }

    @Test("a header and no record")
    func headerOnly() {
        #expect(refusal(Array(Fixtures.body.prefix(86))) == .noRecords)
    }

    @Test("a record size below 18", arguments: [0, 1, 16, 17] as [UInt32])
    func recordSizeBelowMinimum(recordSize: UInt32) {
        var body = Fixtures.body
        body.replaceSubrange(
            16..<20,
            with: [UInt8(recordSize >> 24), UInt8(recordSize >> 16 & 0xFF), UInt8(recordSize >> 8 & 0xFF), UInt8(recordSize & 0xFF)]
        )
        let error = refusal(body)
        #expect(error == .recordSizeTooSmall)
        #expect(error?.description.contains("\(recordSize)") == true)
    }

    @Test("a record size of 18 is the smallest accepted")
    func smallestRecordSize() throws {
        let header = try AES128GCMHeader(parsing: AES128GCMHeader(salt: Fixtures.salt, recordSize: 18, keyID: []).encoded, rules: .rfc8188())
        #expect(header.recordSize == 18)
    }

    @Test("web push rules: an idlen other than 65", arguments: [0, 1, 64, 66, 255])
    func keyIDLength(idlen: Int) {
        var body = Fixtures.body
        body[20] = UInt8(idlen)
        #expect(refusal(body) == .invalidKeyID)
    }

    @Test("an idlen longer than what follows it")
    func keyIDPastTheEnd() {
        var body = Array(Fixtures.example1Body.prefix(21)) + [1, 2, 3]
        body[20] = 200
        #expect(throws: AES128GCMError.truncatedHeader) { try AES128GCMHeader(parsing: body, rules: .rfc8188()) }
    }

    @Test("web push rules: a 65-octet keyid that does not start 0x04, or is no point on P-256")
    func keyIDNotAPoint() {
        var compressed = Fixtures.body
        compressed[21] = 0x03
        #expect(refusal(compressed) == .invalidKeyID)
        var offCurve = Fixtures.body
        offCurve[85] ^= 0x01
        #expect(refusal(offCurve) == .invalidSenderKey)
    }

    @Test("a flipped bit anywhere in the salt, the record or its tag", arguments: Array(0..<16) + Array(86..<144))
    func flippedOctet(index: Int) {
        var body = Fixtures.body
        body[index] ^= 0x40
        #expect(refusal(body) == .authenticationFailed)
    }

    @Test("another auth secret, or another subscription's keys")
    func wrongKeys() throws {
        var authSecret = Fixtures.bytes(Fixtures.authSecret)
        authSecret[0] ^= 1
        let otherAuth = try #require(WebPushSubscriptionKeys(privateKey: Fixtures.userAgentPrivateKey, authSecret: authSecret))
        #expect(throws: AES128GCMError.authenticationFailed) { try otherAuth.decrypt(Fixtures.body) }
        #expect(throws: AES128GCMError.authenticationFailed) { try WebPushSubscriptionKeys().decrypt(Fixtures.body) }
    }

    @Test("a record of only zero octets has no padding delimiter")
    func missingDelimiter() {
        #expect(refusal(Fixtures.appendixABody { Fixtures.sealRaw([0, 0, 0], key: $0) }) == .missingPaddingDelimiter)
        // Nothing at all sealed is a tag alone: too short to hold a delimiter.
        #expect(refusal(Fixtures.appendixABody { Fixtures.sealRaw([], key: $0) }) == .truncatedRecord)
    }

    @Test("the last record's delimiter must be 0x02, any other record's 0x01")
    func wrongDelimiter() {
        for delimiter: UInt8 in [0x01, 0x03, 0xFF] {
            #expect(
                refusal(Fixtures.appendixABody { Fixtures.sealRaw(Array("hello".utf8) + [delimiter, 0, 0], key: $0) }) == .invalidPaddingDelimiter
            )
        }
        let twoRecords = Fixtures.appendixABody(
            records: { key in
                Fixtures.sealRaw(Array(repeating: 0x61, count: 8) + [0x02], key: key, sequenceNumber: 0)
                    + Fixtures.sealRaw([0x62, 0x02], key: key, sequenceNumber: 1)
            },
            recordSize: 25
        )
        #expect(
            refusal(twoRecords, rules: AES128GCMRules(keyID: .uncompressedP256Point, maximumRecordCount: 2, maximumBodySize: 4096))
                == .invalidPaddingDelimiter
        )
    }

    @Test("padding after the delimiter is removed; zeros in the data are kept")
    func padding() throws {
        let body = Fixtures.appendixABody { Fixtures.sealRaw([0, 0x61, 0] + [0x02] + Array(repeating: 0, count: 40), key: $0) }
        #expect(try Fixtures.userAgentKeys.decrypt(body) == [0, 0x61, 0])
    }

    @Test("web push rules: a second record, refused before decrypting")
    func twoRecordsForWebPush() throws {
        let body = try WebPushEncryption.encrypt(Fixtures.plaintext, p256dh: Fixtures.userAgentPublicKey, auth: Fixtures.authSecret, recordSize: 40)
        let error = refusal(body)
        #expect(error == .tooManyRecords)
        #expect(error?.description.contains("RFC 8291 §4") == true)
    }

    @Test("RFC 8188 rules: a record count above the limit; at the limit it decrypts")
    func recordCountLimit() throws {
        #expect(throws: AES128GCMError.tooManyRecords) {
            try AES128GCM.decrypt(Fixtures.example2Body, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188(maximumRecordCount: 1))
        }
        #expect(
            try AES128GCM.decrypt(Fixtures.example2Body, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188(maximumRecordCount: 2))
                == Fixtures.walrus
        )
    }

    @Test("a body over the size limit is refused before its header is read")
    func bodyTooLarge() {
        let body = Fixtures.body + Array(repeating: 0, count: 4096 - 144 + 1)
        let error = refusal(body)
        #expect(error == .bodyTooLarge)
        #expect(error?.description.contains("4097") == true)
        #expect(refusal(Array(repeating: 0, count: 4097)) == .bodyTooLarge)
    }

    @Test("a last record shorter than a tag and a delimiter", arguments: [1, 15, 16])
    func truncatedRecord(length: Int) {
        #expect(refusal(Array(Fixtures.body.prefix(86 + length))) == .truncatedRecord)
        var twoRecords = Fixtures.example2Body
        twoRecords.removeLast(25 - length)
        #expect(throws: AES128GCMError.truncatedRecord) {
            try AES128GCM.decrypt(twoRecords, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188())
        }
    }

    @Test("the second record of §3.2 alone, or the records swapped, do not authenticate")
    func reorderedRecords() {
        let header = Array(Fixtures.example2Body[..<23])
        let swapped = header + Fixtures.example2Body[48...] + Fixtures.example2Body[23..<48]
        #expect(throws: AES128GCMError.authenticationFailed) {
            try AES128GCM.decrypt(swapped, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188())
        }
        let secondAlone = header + Fixtures.example2Body[48...]
        #expect(throws: AES128GCMError.authenticationFailed) {
            try AES128GCM.decrypt(secondAlone, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188())
        }
    }
}
