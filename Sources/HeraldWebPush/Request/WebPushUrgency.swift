/// A web push message's `Urgency` (RFC 8030 §5.3): how readily the device spends battery on it.
///
/// An enum, not an open set: the push service refuses any other value, so an unknown one never travels as data.
/// Ordered from the least urgent.
public enum WebPushUrgency: String, CaseIterable, Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Only on power and Wi-Fi (advertisements).
    case veryLow = "very-low"
    /// On power or Wi-Fi (topic updates).
    case low
    /// On neither power nor Wi-Fi (chat, calendar): the default.
    case normal
    /// Also on low battery (incoming call, time-sensitive alert).
    case high

    /// The urgency of a request without the header.
    public static let `default` = Self.normal

    /// The urgency in an `Urgency` header's value, or `nil` for anything else. RFC 8030's grammar is ABNF, whose
    /// quoted strings match any case (RFC 5234 §2.3): `High` is `high`. Spaces and tabs around it are ignored.
    public init?(headerValue: some StringProtocol) {
        let trimmed = headerValue.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard trimmed.count <= 8 else { return nil }
        let lowered = String(decoding: trimmed.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        self.init(rawValue: lowered)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
