import Crypto
import HeraldCore

/// A push subscription's keys, the user agent's side (RFC 8291 §3.2): a P-256 key agreement key pair and a 16-octet
/// authentication secret.
///
/// ``p256dh`` and ``auth`` are what the subscription's `toJSON().keys` carries to the site's server; the private key
/// stays with the user agent, which decrypts with it (``decrypt(_:rules:)``).
public struct WebPushSubscriptionKeys: Sendable {
    /// The authentication secret's length ("16 octets", RFC 8291 §3.2).
    public static let authSecretLength = 16

    /// The key agreement key pair.
    public let privateKey: P256.KeyAgreement.PrivateKey
    /// The authentication secret.
    public let authSecret: [UInt8]

    /// New keys, made at random.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
        authSecret = WebPushEncryption.randomBytes(Self.authSecretLength)
    }

    /// Keys from their octets (stored keys, tests): the 32-octet private scalar and the 16-octet auth secret; `nil`
    /// when either cannot be used.
    public init?(privateKey: [UInt8], authSecret: [UInt8]) {
        guard authSecret.count == Self.authSecretLength,
            let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
        else { return nil }
        self.privateKey = key
        self.authSecret = authSecret
    }

    /// The public key's 65 octets, uncompressed: RFC 8291's `ua_public`.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.x963Representation) }

    /// The public key in base64url: the subscription's `keys.p256dh`.
    public var p256dh: String { Base64URL.encode(publicKey) }

    /// The auth secret in base64url: the subscription's `keys.auth`.
    public var auth: String { Base64URL.encode(authSecret) }

    /// The private key's 32 octets, to store the keys.
    public var privateKeyBytes: [UInt8] { Array(privateKey.rawRepresentation) }
}
