import Crypto
import HeraldCore

/// An application server's VAPID public key: a P-256 point in the uncompressed form (65 bytes, `0x04‖X‖Y`, X9.62), as
/// `k=` carries it (RFC 8292 §3.2) and as a subscription's `applicationServerKey` holds it.
public struct VAPIDPublicKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's 65 bytes.
    public let rawRepresentation: [UInt8]
    /// The key, for verifying signatures.
    public let signingKey: P256.Signing.PublicKey

    /// The key in 65 bytes, or `nil` when they are not an uncompressed point on P-256.
    public init?(rawRepresentation bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == 65, bytes.first == 0x04, let key = try? P256.Signing.PublicKey(x963Representation: bytes) else { return nil }
        rawRepresentation = bytes
        signingKey = key
    }

    /// The key in base64url text (the standard alphabet and padding also read).
    ///
    /// - Throws: ``WebPushRefusal/Rule/vapidBadKey``, explaining whether the text is not base64url, not 65 bytes, or
    ///   not a point on the curve; `field` names where the key came from (`k`, `Crypto-Key p256ecdsa`).
    public init(base64URL text: some StringProtocol, field: String = "k") throws(WebPushRefusal) {
        guard let bytes = Base64URL.decode(text.utf8) else {
            throw WebPushRefusal(rule: .vapidBadKey, explanation: "VAPID \(field) \(WebPushRefusal.quoted(text)) is not base64url")
        }
        guard bytes.count == 65, bytes[0] == 0x04 else {
            let form = bytes.count == 33 && (bytes[0] == 0x02 || bytes[0] == 0x03) ? " (a compressed point)" : ""
            throw WebPushRefusal(
                rule: .vapidBadKey,
                explanation: "VAPID \(field) is \(bytes.count) bytes\(form), not a 65-byte uncompressed P-256 public key (0x04‖X‖Y)"
            )
        }
        guard let key = Self(rawRepresentation: bytes) else {
            throw WebPushRefusal(rule: .vapidBadKey, explanation: "VAPID \(field) is 65 bytes but not a point on the P-256 curve")
        }
        self = key
    }

    /// The key in base64url without padding, as a browser's `applicationServerKey` is written.
    public var base64URL: String { Base64URL.encode(rawRepresentation) }

    public var description: String { base64URL }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawRepresentation == rhs.rawRepresentation }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }
}
