extension NotificationID {
    /// The `apns-unique-id` the sandbox answers a notification with this `apns-id`: a version 4 UUID, lowercase, made
    /// from the `apns-id` (without case) by a fixed mixing function.
    ///
    /// Why derived and not drawn at random: a test asks the inspection API for a notification by the unique id its
    /// provider was answered with (`GET /api/v1/notifications?uniqueID=…`), and Herald finds it without storing a
    /// second identifier per notification. Herald stores one notification per `apns-id` (a newer one with the same
    /// `apns-id` replaces the older, docs/delivery.md), so the unique id is unique among stored notifications; 122 of
    /// its bits come from the mix, so two `apns-id`s share one with a chance of about 2^-122. Documented in
    /// docs/provider-api.md ("apns-unique-id").
    public var uniqueID: NotificationID {
        guard let (high, low) = Self.bits(of: text) else { return self }
        // Two rounds of a Feistel-like mix of the halves with SplitMix64's finalizer: every output bit depends on
        // every input bit.
        let first = Self.mix(high ^ Self.mix(low ^ 0x9e37_79b9_7f4a_7c15))
        let second = Self.mix(low ^ Self.mix(first ^ 0xd1b5_4a32_d192_ed03))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: first >> (56 - 8 * UInt64(index)))
            bytes[index + 8] = UInt8(truncatingIfNeeded: second >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return Self.formatted(bytes)
    }

    /// SplitMix64's output function: a bijection on 64 bits.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The 128 bits of a canonical UUID's text, high and low halves; `nil` when it is not one.
    private static func bits(of text: String) -> (UInt64, UInt64)? {
        var text = text
        return text.withUTF8 { bytes -> (UInt64, UInt64)? in
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for byte in bytes where byte != UInt8(ascii: "-") {
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte &- UInt8(ascii: "A") &+ 10
                default: return nil
                }
                if digits < 16 {
                    high = high << 4 | UInt64(value)
                } else {
                    low = low << 4 | UInt64(value)
                }
                digits += 1
            }
            return digits == 32 ? (high, low) : nil
        }
    }
}
