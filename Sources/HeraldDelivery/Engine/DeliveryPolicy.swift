/// The store-and-forward rules that Apple leaves open, each a setting (docs/delivery.md).
public struct DeliveryPolicy: Sendable, Hashable {
    /// How many notifications are kept per device token (one app on one device) while the device is offline.
    ///
    /// Apple: "APNs stores only one notification per bundle ID … In most cases, the latest notification is
    /// stored" (spec §A.10). Default 1; when a new one would exceed it, the oldest is `replaced`.
    /// Values below 1 count as 1: a notification for an offline device is always kept until it expires.
    public var offlineSlotsPerApp: Int = 1
    /// How long a notification without `apns-expiration` is kept: Apple stores "for 30 days or less".
    public var defaultStorage: Duration = .seconds(30 * 24 * 3600)
    /// How long priority 5 and 1 notifications may be held so that they go out in bursts (spec §A.10);
    /// `.zero` sends them at once like priority 10.
    public var lowPriorityBurstWindow: Duration = .seconds(1)
    /// How long a channel with storage policy 1 keeps its most recent broadcast for devices that subscribe later, at
    /// most (a broadcast's own `apns-expiration` may say less). Apple: "up to 8 hours" (docs/broadcast.md).
    public var broadcastStorage: Duration = .seconds(8 * 3600)

    /// The default policy.
    public init() {}
}

extension Duration {
    /// The duration in whole milliseconds (rounded down), as the state machine counts time.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
