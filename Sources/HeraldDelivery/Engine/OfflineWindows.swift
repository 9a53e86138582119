import HeraldCore

/// Why a device is kept off the device link for a while: a fault rule's `deviceOffline` (docs/faults.md).
public struct OfflineWindow: Sendable, Hashable {
    /// The rule that applied.
    public var ruleID: String
    /// When the device may connect again, in milliseconds since the epoch (on the server's clock).
    public var untilMilliseconds: Int64

    /// Creates a window.
    public init(ruleID: String, untilMilliseconds: Int64) {
        self.ruleID = ruleID
        self.untilMilliseconds = untilMilliseconds
    }

    /// The device-link error code a device kept offline gets.
    public static let errorCode = "device-offline"

    /// How long from `now` until the device may come back, in milliseconds (at least 1).
    public func retryAfterMilliseconds(now: Int64) -> Int64 { max(1, untilMilliseconds - now) }

    /// The `error` frame's message: why, and when the device may come back.
    public func message(now: Int64) -> String {
        "fault rule '\(ruleID)' (deviceOffline) keeps this device offline for \(retryAfterMilliseconds(now: now)) ms more, until \(untilMilliseconds) ms since the epoch; connect again then"
    }
}

/// The device tokens fault rules keep offline, and until when: in memory only (a restart forgets them).
///
/// Keyed by token, not by device, because a rule matches a token and the device holding an offline token need not
/// be connected (or known to the engine) when the rule applies: the device link refuses a device whose active tokens
/// include one that is held. Entries whose time is up are dropped as new ones come, so the table stays as small as
/// the windows in force.
struct OfflineWindows {
    private var windows: [DeviceToken: OfflineWindow] = [:]
    /// The earliest end among ``windows``: nothing to drop before then.
    private var earliestEnd = Int64.max

    /// Keeps the token offline until the window's end (or longer, when a window in force ends later).
    mutating func hold(_ token: DeviceToken, _ window: OfflineWindow, now: Int64) {
        if earliestEnd <= now {
            windows = windows.filter { $0.value.untilMilliseconds > now }
            earliestEnd = windows.values.map(\.untilMilliseconds).min() ?? .max
        }
        if let current = windows[token], current.untilMilliseconds >= window.untilMilliseconds { return }
        windows[token] = window
        earliestEnd = min(earliestEnd, window.untilMilliseconds)
    }

    /// The window that ends last among those in force for these tokens, if any.
    func window(for tokens: some Sequence<DeviceToken>, now: Int64) -> OfflineWindow? {
        guard !windows.isEmpty else { return nil }
        var longest: OfflineWindow?
        for token in tokens {
            guard let window = windows[token], window.untilMilliseconds > now else { continue }
            if window.untilMilliseconds > longest?.untilMilliseconds ?? .min { longest = window }
        }
        return longest
    }
}
