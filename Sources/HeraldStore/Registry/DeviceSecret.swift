import Crypto

/// The secrets devices authenticate with: made here, shown once, stored only as a SHA-256 hash.
///
/// Why a plain SHA-256 and no slow password hash: the secret is 32 random bytes, not a password a person
/// chose, so there is nothing to guess and a fast hash is enough; what matters is that a copy of the database
/// does not let anyone connect as a device.
package enum DeviceSecret {
    /// The number of random bytes in a secret; its text is twice as many hex digits.
    package static let byteCount = 32

    /// A new secret: 32 bytes from the system's secure generator, as 64 lowercase hex digits.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        // Four 64-bit draws, not 32 byte draws: each draw of the system generator is a system call.
        for _ in 0..<(byteCount / 8) {
            let word = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return hex(bytes)
    }

    /// The stored form of a secret: its SHA-256 digest as 64 lowercase hex digits.
    package static func digest(of secret: String) -> String {
        hex(SHA256.hash(data: Array(secret.utf8)))
    }

    /// Whether `secret` hashes to `storedDigest`, comparing the two digests in constant time.
    ///
    /// Why constant time: a comparison that stops at the first differing byte tells a patient caller, by its
    /// timing, how much of a guess was right.
    package static func matches(_ secret: String, storedDigest: String) -> Bool {
        let computed = Array(digest(of: secret).utf8)
        let stored = Array(storedDigest.utf8)
        // The lengths are public (64 digits), so leaving early on a mismatch leaks nothing.
        guard computed.count == stored.count else { return false }
        var difference: UInt8 = 0
        for index in computed.indices {
            difference |= computed[index] ^ stored[index]
        }
        return difference == 0
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
