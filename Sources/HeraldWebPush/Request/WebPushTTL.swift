/// A web push message's time to live (RFC 8030 §5.2): how many seconds the push service keeps it for delivery.
///
/// `0` means now or never: delivered if the web app's device is reachable at once, otherwise dropped.
public struct WebPushTTL: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest `TTL` header value read, in characters: longer digit strings are refused, not parsed.
    public static let maximumHeaderLength = 20

    /// Thirty days: the longest Herald keeps a message by default (``WebPushPolicy/maximumTTL``).
    public static let thirtyDays = Self(seconds: 2_592_000)

    /// Now or never.
    public static let zero = Self(seconds: 0)

    /// The seconds, never negative.
    public let seconds: Int64

    /// A TTL of `seconds`; a negative value is read as 0.
    public init(seconds: Int64) {
        self.seconds = max(0, seconds)
    }

    /// The TTL in a `TTL` header's value, or `nil` when it is not a non-negative decimal integer (RFC 8030 §5.2:
    /// `TTL = 1*DIGIT`) of at most ``maximumHeaderLength`` digits. Spaces and tabs around it are ignored; a value
    /// beyond `Int64` reads as `Int64.max`, which any cap cuts down.
    public init?(headerValue: some StringProtocol) {
        let digits = headerValue.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard !digits.isEmpty, digits.count <= Self.maximumHeaderLength,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            if overflow || overflowSum {
                value = .max
                break
            }
            value = sum
        }
        self.init(seconds: value)
    }

    /// Whether the message is delivered now or never.
    public var isNowOrNever: Bool { seconds == 0 }

    public var description: String { String(seconds) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
}
