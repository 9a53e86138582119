/// Why a web push message could not be encrypted: a subscription key or a parameter that cannot be used.
///
/// Callers match with `==` against the static members, which compares the kind only; ``description`` says what was
/// given.
public struct WebPushEncryptionError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidP256DH
        case invalidAuthSecret
        case invalidSalt
        case invalidRecordSize
        case invalidPadding
    }

    private let code: Code

    /// What was given, in one line.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// `p256dh` is not base64url of a 65-octet uncompressed P-256 point.
    public static let invalidP256DH = Self(.invalidP256DH, "p256dh is not an uncompressed P-256 public key")
    /// `auth` is not base64url of 16 octets (RFC 8291 §3.2).
    public static let invalidAuthSecret = Self(.invalidAuthSecret, "auth is not a 16-octet secret")
    /// The salt given is not 16 octets.
    public static let invalidSalt = Self(.invalidSalt, "the salt is not 16 octets")
    /// The record size is below 18 or above 2^32 - 1 (RFC 8188 §2.1).
    public static let invalidRecordSize = Self(.invalidRecordSize, "the record size is not between 18 and 2^32 - 1")
    /// The padding is negative.
    public static let invalidPadding = Self(.invalidPadding, "the padding is negative")

    /// The same kind of error, saying what was given.
    func saying(_ description: String) -> Self { Self(code, description) }

    /// Errors are equal when they are the same kind, whatever their description.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
