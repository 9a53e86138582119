import Crypto
import HeraldCore

/// Web push message encryption, the application server's side (RFC 8291): a plaintext, and the subscriber's
/// `p256dh` and `auth`, make the `aes128gcm` body a provider posts to the push service.
///
/// A fresh P-256 key and salt are made for each message unless given (tests, RFC 8291's Appendix A). Nothing limits
/// the plaintext's length: sending a body above the push service's 4096 octets is how its `413` is tested.
public enum WebPushEncryption {
    /// The body for `plaintext`, encrypted for the subscription whose keys are `p256dh` and `auth` (base64url, as a
    /// subscription's `toJSON().keys` carries them).
    ///
    /// - Throws: ``WebPushEncryptionError`` for a key, salt, record size or padding that cannot be used.
    public static func encrypt(
        _ plaintext: some Collection<UInt8>,
        p256dh: String,
        auth: String,
        salt: [UInt8]? = nil,
        senderKey: P256.KeyAgreement.PrivateKey? = nil,
        recordSize: Int = 4096,
        padding: Int = 0
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard let publicKey = Base64URL.decode(p256dh.utf8) else {
            throw WebPushEncryptionError.invalidP256DH.saying("p256dh is not base64url")
        }
        guard let authSecret = Base64URL.decode(auth.utf8) else {
            throw WebPushEncryptionError.invalidAuthSecret.saying("auth is not base64url")
        }
        return try encrypt(
            plaintext,
            userAgentPublicKey: publicKey,
            authSecret: authSecret,
            salt: salt,
            senderKey: senderKey,
            recordSize: recordSize,
            padding: padding
        )
    }

    /// The body for `plaintext`, encrypted for the user agent key `userAgentPublicKey` (65 octets, uncompressed) and
    /// the 16-octet `authSecret`.
    ///
    /// `recordSize` (at least 18) above the plaintext, its delimiter, `padding` and the tag gives the one record
    /// RFC 8291 §4 requires; a smaller one gives several, which a web push reader refuses (for tests).
    ///
    /// - Throws: ``WebPushEncryptionError`` for a key, salt, record size or padding that cannot be used.
    public static func encrypt(
        _ plaintext: some Collection<UInt8>,
        userAgentPublicKey: [UInt8],
        authSecret: [UInt8],
        salt: [UInt8]? = nil,
        senderKey: P256.KeyAgreement.PrivateKey? = nil,
        recordSize: Int = 4096,
        padding: Int = 0
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard userAgentPublicKey.count == 65, userAgentPublicKey.first == 0x04,
            let userAgentKey = try? P256.KeyAgreement.PublicKey(x963Representation: userAgentPublicKey)
        else {
            throw WebPushEncryptionError.invalidP256DH.saying(
                "p256dh is \(userAgentPublicKey.count) octets that are not an uncompressed P-256 point"
            )
        }
        guard authSecret.count == WebPushSubscriptionKeys.authSecretLength else {
            throw WebPushEncryptionError.invalidAuthSecret.saying("auth is \(authSecret.count) octets, not 16")
        }
        let salt = salt ?? randomBytes(AES128GCMHeader.saltLength)
        guard salt.count == AES128GCMHeader.saltLength else {
            throw WebPushEncryptionError.invalidSalt.saying("the salt is \(salt.count) octets, not 16")
        }
        guard recordSize >= AES128GCMHeader.minimumRecordSize, recordSize <= Int(UInt32.max) else {
            throw WebPushEncryptionError.invalidRecordSize.saying("record size \(recordSize) is not between 18 and 2^32 - 1")
        }
        guard padding >= 0 else { throw WebPushEncryptionError.invalidPadding.saying("padding \(padding) is negative") }
        let senderKey = senderKey ?? P256.KeyAgreement.PrivateKey()
        let senderPublicKey = Array(senderKey.publicKey.x963Representation)
        let ecdhSecret: [UInt8]
        do {
            ecdhSecret = try senderKey.sharedSecretFromKeyAgreement(with: userAgentKey).withUnsafeBytes { Array($0) }
        } catch {
            throw WebPushEncryptionError.invalidP256DH.saying("p256dh gives no ECDH secret: \(error)")
        }
        let inputKeyingMaterial = Self.inputKeyingMaterial(
            ecdhSecret: ecdhSecret,
            authSecret: authSecret,
            userAgentPublicKey: userAgentPublicKey,
            applicationServerPublicKey: senderPublicKey
        )
        let header = AES128GCMHeader(salt: salt, recordSize: UInt32(recordSize), keyID: senderPublicKey)
        return AES128GCM.encrypt(
            Array(plaintext),
            padding: padding,
            header: header,
            key: AES128GCMKey(inputKeyingMaterial: inputKeyingMaterial, salt: salt)
        )
    }

    /// RFC 8291 §3.4's `IKM`: `HKDF(salt: auth_secret, IKM: ecdh_secret, info: "WebPush: info" || 0x00 || ua_public ||
    /// as_public, L: 32)`.
    static func inputKeyingMaterial(
        ecdhSecret: [UInt8],
        authSecret: [UInt8],
        userAgentPublicKey: [UInt8],
        applicationServerPublicKey: [UInt8]
    ) -> [UInt8] {
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublicKey + applicationServerPublicKey
        return HKDF<SHA256>.expand(
            pseudoRandomKey: keyPseudorandomKey(ecdhSecret: ecdhSecret, authSecret: authSecret),
            info: keyInfo,
            outputByteCount: 32
        )
        .withUnsafeBytes { Array($0) }
    }

    /// RFC 8291 §3.4's `PRK_key = HKDF-Extract(auth_secret, ecdh_secret)`.
    static func keyPseudorandomKey(ecdhSecret: [UInt8], authSecret: [UInt8]) -> HashedAuthenticationCode<SHA256> {
        HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: ecdhSecret), salt: authSecret)
    }

    /// `count` octets from the system's generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
