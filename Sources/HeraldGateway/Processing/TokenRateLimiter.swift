import HeraldCore
import Synchronization

/// Admits at most N notifications per second to one device token (`TooManyRequests` beyond that, spec §A.5).
///
/// Apple's threshold is undocumented; Herald's is configurable and off by default (docs/provider-api.md).
final class TokenRateLimiter: Sendable {
    private struct Window {
        var second: Int64
        var count: Int
    }

    private let perSecond: Int
    private let windows = Mutex<[DeviceToken: Window]>([:])

    init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// Counts one notification for the token; false when the token is over its limit in the current second.
    func admit(_ token: DeviceToken, nowMilliseconds: Int64) -> Bool {
        let second = nowMilliseconds / 1000
        return windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { $0.value.second == second } }
            var window = windows[token] ?? Window(second: second, count: 0)
            if window.second != second { window = Window(second: second, count: 0) }
            window.count += 1
            windows[token] = window
            return window.count <= perSecond
        }
    }
}
