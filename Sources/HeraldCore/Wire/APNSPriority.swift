/// The value of the `apns-priority` header: 10 (immediate), 5 (power-aware) or 1 (lowest).
public struct APNSPriority: RawRepresentable, Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The header value.
    public let rawValue: Int

    /// Creates a priority from its numeric value; any value is representable, `isValid` says if APNs takes it.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Send immediately.
    public static let immediate = Self(rawValue: 10)
    /// Send based on power considerations on the device.
    public static let powerConsiderate = Self(rawValue: 5)
    /// Prioritise the device's power over all else; never wake the device.
    public static let low = Self(rawValue: 1)

    /// Whether APNs documents this value (spec §A.2).
    public var isValid: Bool { rawValue == 10 || rawValue == 5 || rawValue == 1 }

    public var description: String { String(rawValue) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
