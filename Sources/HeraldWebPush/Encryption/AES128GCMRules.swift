/// What an `aes128gcm` reader accepts beyond RFC 8188's own rules: the shape of the `keyid`, and its limits.
///
/// ``webPush`` is what a push service and a user agent apply to a web push message (RFC 8291 §4: the application
/// server's key as the `keyid`, one record); ``rfc8188(maximumRecordCount:maximumBodySize:)`` reads any RFC 8188
/// body, such as the RFC's own examples, whose `keyid` is empty or a label.
public struct AES128GCMRules: Hashable, Sendable {
    /// What the `keyid` must be.
    public enum KeyID: Hashable, Sendable {
        /// Any 0 to 255 octets (RFC 8188 §2.1).
        case any
        /// The 65-octet uncompressed P-256 point of the application server's key, starting 0x04 (RFC 8291 §4).
        case uncompressedP256Point
    }

    /// What the `keyid` must be.
    public var keyID: KeyID
    /// The most records a body may hold, counted from its length before anything is decrypted.
    public var maximumRecordCount: Int
    /// The most octets a body may have, header included.
    public var maximumBodySize: Int

    /// Rules with these limits.
    public init(keyID: KeyID, maximumRecordCount: Int, maximumBodySize: Int) {
        self.keyID = keyID
        self.maximumRecordCount = maximumRecordCount
        self.maximumBodySize = maximumBodySize
    }

    /// A web push message: the sender's key as the `keyid`, one record ("An application server MUST encrypt a push
    /// message with a single record", RFC 8291 §4), at most 4096 octets (RFC 8030 §7.2, the size Apple's push service
    /// takes).
    public static let webPush = Self(keyID: .uncompressedP256Point, maximumRecordCount: 1, maximumBodySize: 4096)

    /// Any RFC 8188 body within these limits.
    public static func rfc8188(maximumRecordCount: Int = 64, maximumBodySize: Int = 65_536) -> Self {
        Self(keyID: .any, maximumRecordCount: maximumRecordCount, maximumBodySize: maximumBodySize)
    }
}
