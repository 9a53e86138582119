/// A web push message's `Topic` header (RFC 8030 §5.4): a name under which a newer message replaces one the push
/// service still holds for the same subscription, as `apns-collapse-id` does for APNs.
///
/// RFC 8030 allows at most 32 characters of the URL- and filename-safe base64 alphabet (RFC 4648 §5); anything else is
/// refused, not trimmed.
public struct WebPushTopic: Hashable, Sendable, CustomStringConvertible {
    /// The longest topic RFC 8030 allows.
    public static let maximumLength = 32

    /// The topic as the provider sent it.
    public let value: String

    /// A topic from a `Topic` header's value, or `nil` when it is empty, longer than 32 characters or has a character
    /// outside `A–Z a–z 0–9 - _`.
    public init?(_ value: String) {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes.allSatisfy(Self.isURLSafeBase64) else { return nil }
        self.value = value
    }

    public var description: String { value }

    private static func isURLSafeBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
