import Foundation
import Synchronization

/// The time source every timing rule reads (token age, expiration, budgets), injected so tests never sleep.
public protocol WallClock: Sendable {
    /// Milliseconds since the UNIX epoch.
    func nowMilliseconds() -> Int64
}

extension WallClock {
    /// Whole seconds since the UNIX epoch.
    public func nowSeconds() -> Int64 { nowMilliseconds() / 1000 }
}

/// The system's real time.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}

    public func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

/// A clock that moves only when told to: the test double for every timing rule.
public final class ManualWallClock: WallClock {
    private let milliseconds: Mutex<Int64>

    /// Creates a clock at the given time (default: the system's current time).
    public init(milliseconds: Int64 = SystemWallClock().nowMilliseconds()) {
        self.milliseconds = Mutex(milliseconds)
    }

    public func nowMilliseconds() -> Int64 { milliseconds.withLock { $0 } }

    /// Moves the clock forward by a number of seconds.
    public func advance(seconds: Double) {
        milliseconds.withLock { $0 += Int64(seconds * 1000) }
    }

    /// Sets the clock.
    public func set(milliseconds value: Int64) {
        milliseconds.withLock { $0 = value }
    }
}
