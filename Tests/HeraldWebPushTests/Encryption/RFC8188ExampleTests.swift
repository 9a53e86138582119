import HeraldTestTiers
import Testing

@testable import HeraldWebPush

@Suite("aes128gcm content coding: RFC 8188 §3's examples", .tier(.unit))
struct RFC8188ExampleTests {
    typealias Fixtures = AES128GCMFixtures

    @Test("§3.1: the header reads as salt, rs 4096 and no keyid; PRK, CEK and NONCE are the RFC's")
    func example1Derivation() throws {
        let header = try AES128GCMHeader(parsing: Fixtures.example1Body, rules: .rfc8188())
        #expect(header.salt == Fixtures.bytes("I1BsxtFttlv3u_Oo94xnmw"))
        #expect(header.recordSize == 4096)
        #expect(header.keyID.isEmpty)
        #expect(header.encodedLength == 21)
        #expect(header.encoded == Array(Fixtures.example1Body.prefix(21)))
        let key = AES128GCMKey(inputKeyingMaterial: Fixtures.example1Key, salt: header.salt)
        #expect(key.pseudorandomKey == Fixtures.bytes("zyeH5phsIsgUyd4oiSEIy35x-gIi4aM7y0hCF8mwn9g"))
        #expect(key.contentEncryptionKeyBytes == Fixtures.bytes("_wniytB-ofscZDh4tbSjHw"))
        #expect(key.nonceBase == Fixtures.bytes("Bcs8gkIRKLI8GeI8"))
    }

    @Test("§3.1: one record decrypts to \"I am the walrus\", and encrypting it again gives the RFC's 53 octets")
    func example1() throws {
        #expect(try AES128GCM.decrypt(Fixtures.example1Body, inputKeyingMaterial: Fixtures.example1Key, rules: .rfc8188()) == Fixtures.walrus)
        let header = AES128GCMHeader(salt: Array(Fixtures.example1Body.prefix(16)), recordSize: 4096, keyID: [])
        let key = AES128GCMKey(inputKeyingMaterial: Fixtures.example1Key, salt: header.salt)
        #expect(AES128GCM.encrypt(Fixtures.walrus, padding: 0, header: header, key: key) == Fixtures.example1Body)
    }

    @Test("§3.2: two records of rs 25 with keyid \"a1\" decrypt to \"I am the walrus\"")
    func example2() throws {
        let layout = try AES128GCMLayout(parsing: Fixtures.example2Body, rules: .rfc8188())
        #expect(layout.header.recordSize == 25)
        #expect(layout.header.keyID == Array("a1".utf8))
        #expect(layout.recordCount == 2)
        #expect(layout.recordRange(0) == 23..<48)
        #expect(layout.recordRange(1) == 48..<73)
        #expect(try AES128GCM.decrypt(Fixtures.example2Body, inputKeyingMaterial: Fixtures.example2Key, rules: .rfc8188()) == Fixtures.walrus)
    }

    @Test("§3.2: sealing \"I am th\" with one octet of padding, then \"e walrus\", gives the RFC's 73 octets")
    func example2Records() {
        let header = AES128GCMHeader(salt: Array(Fixtures.example2Body.prefix(16)), recordSize: 25, keyID: Array("a1".utf8))
        let key = AES128GCMKey(inputKeyingMaterial: Fixtures.example2Key, salt: header.salt)
        let first = AES128GCMRecord.seal(Fixtures.walrus[..<7], padding: 1, isLast: false, sequenceNumber: 0, key: key)
        let second = AES128GCMRecord.seal(Fixtures.walrus[7...], padding: 0, isLast: true, sequenceNumber: 1, key: key)
        #expect(header.encoded + first + second == Fixtures.example2Body)
    }

    @Test("the nonce of record SEQ is the base XOR SEQ, big-endian in the last octets (§2.3)")
    func nonceDerivation() {
        let key = AES128GCMKey(inputKeyingMaterial: Fixtures.example1Key, salt: Array(Fixtures.example1Body.prefix(16)))
        #expect(key.nonce(sequenceNumber: 0) == key.nonceBase)
        var expected = key.nonceBase
        expected[11] ^= 0x01
        #expect(key.nonce(sequenceNumber: 1) == expected)
        expected = key.nonceBase
        expected[10] ^= 0x01
        expected[11] ^= 0x02
        #expect(key.nonce(sequenceNumber: 0x0102) == expected)
        #expect(key.nonce(sequenceNumber: 0x0102).prefix(4) == key.nonceBase.prefix(4))
    }

    @Test("the web push rules refuse the examples' keyids, the RFC 8188 rules take them")
    func keyIDRules() {
        #expect(throws: AES128GCMError.invalidKeyID) { try AES128GCMHeader(parsing: Fixtures.example1Body, rules: .webPush) }
        #expect(throws: AES128GCMError.invalidKeyID) { try AES128GCMHeader(parsing: Fixtures.example2Body, rules: .webPush) }
        #expect(throws: Never.self) { try AES128GCMHeader(parsing: Fixtures.example2Body, rules: .rfc8188()) }
    }
}
