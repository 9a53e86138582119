/// The `apns-id` of a notification: a canonical UUID, 8-4-4-4-12 hexadecimal digits.
///
/// Apple's examples are lowercase; Herald also accepts uppercase (spec §A.2 leaves it open) and keeps
/// the text the provider sent, since APNs echoes "the same value found in the apns-id field".
public struct NotificationID: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The identifier exactly as the provider sent it (or as Herald generated it, lowercase).
    public let text: String

    /// Parses a canonical UUID string; `nil` when the form is not 8-4-4-4-12 hex digits.
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                continue
            default:
                return nil
            }
        }
        self.text = String(text)
    }

    /// A new random (version 4) identifier, lowercase, from the system's cryptographic generator.
    public static func random() -> NotificationID {
        var generator = PooledRandomGenerator()
        return random(using: &generator)
    }

    /// A new random (version 4) identifier, lowercase, from the given generator.
    public static func random(using generator: inout some RandomNumberGenerator) -> NotificationID {
        var bytes = randomBytes(using: &generator)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        return formatted(bytes)
    }

    /// A new time-ordered (version 7, RFC 9562) identifier, lowercase: the current Unix time in milliseconds,
    /// then 74 random bits from the system's cryptographic generator.
    ///
    /// Why: identifiers made one after another sort one after another, so the store's `apns-id` index grows at its
    /// end instead of dirtying a random page per notification (docs/provider-api.md, "Generated apns-id values").
    public static func timeOrdered() -> NotificationID {
        var generator = PooledRandomGenerator()
        return timeOrdered(unixMilliseconds: SystemWallClock().nowMilliseconds(), using: &generator)
    }

    /// A new time-ordered (version 7) identifier for the given Unix time in milliseconds (its low 48 bits).
    public static func timeOrdered(unixMilliseconds: Int64, using generator: inout some RandomNumberGenerator) -> NotificationID {
        var bytes = randomBytes(using: &generator)
        let milliseconds = UInt64(bitPattern: unixMilliseconds)
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x70
        return formatted(bytes)
    }

    /// Sixteen random bytes with the RFC 9562 variant bits set; the caller sets the version.
    private static func randomBytes(using generator: inout some RandomNumberGenerator) -> [UInt8] {
        // Two 64-bit draws, not sixteen byte draws.
        let high = generator.next()
        let low = generator.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return bytes
    }

    /// The 8-4-4-4-12 lowercase form of sixteen bytes.
    static func formatted(_ bytes: [UInt8]) -> NotificationID {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return NotificationID(unchecked: String(decoding: out, as: UTF8.self))
    }

    private init(unchecked text: String) {
        self.text = text
    }

    /// The lowercase form, used as the key of the notification's trace.
    ///
    /// The text itself when it is lowercase already (every generated identifier, most providers'): no copy. The
    /// engine and the store ask for it several times per notification.
    public var key: String {
        text.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") } ? text.lowercased() : text
    }

    public var description: String { text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let id = NotificationID(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an apns-id: \(string)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
