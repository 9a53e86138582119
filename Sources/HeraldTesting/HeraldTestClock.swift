import Foundation
import HeraldCore
import Synchronization

/// The test server's wall clock: the system's time plus an offset that a test moves forward, so time passes
/// as usual (provider tokens stay valid) and a test can jump over an expiration without sleeping.
public final class HeraldTestClock: WallClock {
    private let offsetMilliseconds = Mutex<Int64>(0)

    /// Creates a clock that reads the system's time.
    public init() {}

    /// Milliseconds since the UNIX epoch, offset by every ``advance(by:)``.
    public func nowMilliseconds() -> Int64 {
        SystemWallClock().nowMilliseconds() + offsetMilliseconds.withLock { $0 }
    }

    /// Moves the clock forward. Rules that read it (expiration, storage time) see the jump at the engine's next
    /// tick (a tenth of a second).
    ///
    /// Provider tokens are checked on this clock too: a jump of an hour or more makes a token signed on the
    /// system's clock `ExpiredProviderToken`.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        offsetMilliseconds.withLock { $0 += max(0, milliseconds) }
    }

    /// The clock's time as a `Date`.
    public var now: Date { Date(timeIntervalSince1970: Double(nowMilliseconds()) / 1000) }
}
