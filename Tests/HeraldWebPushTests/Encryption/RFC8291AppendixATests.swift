import Crypto
import HeraldTestTiers
import Testing

@testable import HeraldWebPush

@Suite("Web push message encryption: RFC 8291 Appendix A", .tier(.unit))
struct RFC8291AppendixATests {
    typealias Fixtures = AES128GCMFixtures

    @Test("the keys: the user agent's p256dh and auth, the application server's public key")
    func keys() {
        let keys = Fixtures.userAgentKeys
        #expect(keys.p256dh == Fixtures.userAgentPublicKey)
        #expect(keys.auth == Fixtures.authSecret)
        #expect(keys.privateKeyBytes == Fixtures.userAgentPrivateKey)
        #expect(Array(Fixtures.applicationServerKey.publicKey.x963Representation) == Fixtures.applicationServerPublicKey)
    }

    @Test("ecdh_secret, PRK_key, IKM, PRK, CEK and NONCE are the RFC's")
    func derivation() throws {
        let keys = Fixtures.userAgentKeys
        let ecdhSecret = try Fixtures.applicationServerKey.sharedSecretFromKeyAgreement(with: keys.privateKey.publicKey)
            .withUnsafeBytes { Array($0) }
        #expect(ecdhSecret == Fixtures.bytes("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"))
        let prkKey = WebPushEncryption.keyPseudorandomKey(ecdhSecret: ecdhSecret, authSecret: keys.authSecret)
        #expect(Array(prkKey) == Fixtures.bytes("Snr3JMxaHVDXHWJn5wdC52WjpCtd2EIEGBykDcZW32k"))
        let inputKeyingMaterial = WebPushEncryption.inputKeyingMaterial(
            ecdhSecret: ecdhSecret,
            authSecret: keys.authSecret,
            userAgentPublicKey: keys.publicKey,
            applicationServerPublicKey: Fixtures.applicationServerPublicKey
        )
        #expect(inputKeyingMaterial == Fixtures.bytes("S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"))
        let key = AES128GCMKey(inputKeyingMaterial: inputKeyingMaterial, salt: Fixtures.salt)
        #expect(key.pseudorandomKey == Fixtures.bytes("09_eUZGrsvxChDCGRCdkLiDXrReGOEVeSCdCcPBSJSc"))
        #expect(key.contentEncryptionKeyBytes == Fixtures.bytes("oIhVW04MRdy2XN9CiKLxTg"))
        #expect(key.nonceBase == Fixtures.bytes("4h_95klXJ5E_qnoN"))
    }

    @Test("encrypting with the RFC's salt and sender key gives its 144-octet body, octet for octet")
    func encrypt() throws {
        let body = try WebPushEncryption.encrypt(
            Fixtures.plaintext,
            p256dh: Fixtures.userAgentPublicKey,
            auth: Fixtures.authSecret,
            salt: Fixtures.salt,
            senderKey: Fixtures.applicationServerKey
        )
        #expect(body.count == 144)
        #expect(body == Fixtures.body)
    }

    @Test("the user agent decrypts the RFC's body to \"When I grow up, I want to be a watermelon\"")
    func decrypt() throws {
        let header = try AES128GCMHeader(parsing: Fixtures.body, rules: .webPush)
        #expect(header.salt == Fixtures.salt)
        #expect(header.recordSize == 4096)
        #expect(header.keyID == Fixtures.applicationServerPublicKey)
        #expect(header.encodedLength == 86)
        #expect(try Fixtures.userAgentKeys.decrypt(Fixtures.body) == Fixtures.plaintext)
        #expect(try Fixtures.userAgentKeys.decrypt(Fixtures.body[...]) == Fixtures.plaintext)
    }
}
