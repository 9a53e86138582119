import HeraldCore

/// Where a stored notification is in its life.
///
/// A `RawRepresentable` struct so that a state written by a newer Herald reads as data, not a crash.
public struct NotificationState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored form.
    public let rawValue: String

    /// Creates a state from its stored form.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Accepted and waiting for delivery (the default).
    public static let stored = Self(rawValue: "stored")
    /// Delivered to the device and acknowledged.
    public static let delivered = Self(rawValue: "delivered")
    /// Its `apns-expiration` passed (or it was `0` and the single attempt failed) before delivery.
    public static let expired = Self(rawValue: "expired")
    /// A newer notification for the same device and app (or the same collapse id) took its place.
    public static let replaced = Self(rawValue: "replaced")
    /// Dropped for another reason the trace records (e.g. the token was unregistered).
    public static let discarded = Self(rawValue: "discarded")

    /// The states the v1 schema accepts.
    public static let allKnown: [NotificationState] = [.stored, .delivered, .expired, .replaced, .discarded]

    /// The stored form.
    public var description: String { rawValue }
}

/// A notification as the store holds it: what the gateway accepted, its place in order, and its state.
public struct StoredNotification: Hashable, Sendable {
    /// The store's commit order: larger is newer, never reused.
    public var sequence: Int64
    /// The notification as accepted.
    public var notification: AcceptedNotification
    /// Its current state.
    public var state: NotificationState

    /// Creates a stored notification.
    public init(sequence: Int64, notification: AcceptedNotification, state: NotificationState) {
        self.sequence = sequence
        self.notification = notification
        self.state = state
    }
}
