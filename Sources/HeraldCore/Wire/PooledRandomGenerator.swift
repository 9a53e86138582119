import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's cryptographic random numbers, fetched 4 KiB at a time.
///
/// Why: `SystemRandomNumberGenerator` makes one `getrandom` call per 64-bit draw, and every request without an
/// `apns-id` (and every sandbox answer's `apns-unique-id`) needs two. A shared pool refilled from `/dev/urandom` by
/// one read per 512 draws keeps a cryptographic source and removes almost all of those system calls from the event
/// loop.
public struct PooledRandomGenerator: RandomNumberGenerator, Sendable {
    private static let pool = Mutex(Pool())

    /// Creates a handle on the shared pool.
    public init() {}

    public mutating func next() -> UInt64 {
        Self.pool.withLock { $0.next() }
    }

    private struct Pool: ~Copyable {
        private var words = [UInt64](repeating: 0, count: 512)
        private var position = 512

        mutating func next() -> UInt64 {
            if position == words.count { refill() }
            defer { position += 1 }
            return words[position]
        }

        /// `/dev/urandom`, opened on first use and kept (the same source as `getrandom`).
        private var device: Int32 = -1

        private mutating func refill() {
            if device < 0 { device = open("/dev/urandom", O_RDONLY | O_CLOEXEC) }
            let source = device
            let filled = words.withUnsafeMutableBytes { buffer -> Bool in
                guard let base = buffer.baseAddress, source >= 0 else { return false }
                var offset = 0
                while offset < buffer.count {
                    let count = read(source, base + offset, buffer.count - offset)
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
            if !filled {
                // No /dev/urandom (a sandbox without /dev): the standard library's generator, one draw at a time.
                var system = SystemRandomNumberGenerator()
                for index in words.indices { words[index] = system.next() }
            }
            position = 0
        }
    }
}
