/// The kind of a delivery-trace event.
///
/// The gateway and store write `accepted` and `replaced`; the delivery engine and devices add the others.
public struct TraceEventKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored form: lowercase letters and `-`.
    public let rawValue: String

    /// Creates a kind from its stored form.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The gateway accepted the notification and it was committed.
    public static let accepted = Self(rawValue: "accepted")
    /// The notification was stored for an offline device.
    public static let stored = Self(rawValue: "stored")
    /// A newer notification took this one's place (same `apns-id`, same collapse id, or same stored slot).
    public static let replaced = Self(rawValue: "replaced")
    /// The notification expired before delivery.
    public static let expired = Self(rawValue: "expired")
    /// The device acknowledged the notification.
    public static let delivered = Self(rawValue: "delivered")

    /// The stored form.
    public var description: String { rawValue }
}

/// One event in a notification's delivery trace.
public struct TraceEvent: Hashable, Sendable {
    /// The event's id: larger is later.
    public var id: Int64
    /// The notification's `apns-id`, in its lowercase key form.
    public var notificationKey: String
    /// When it happened, in milliseconds since the epoch.
    public var atMilliseconds: Int64
    /// What happened.
    public var kind: TraceEventKind
    /// Details as a JSON object's text, or `nil`.
    public var detailJSON: String?

    /// Creates a trace event.
    public init(id: Int64, notificationKey: String, atMilliseconds: Int64, kind: TraceEventKind, detailJSON: String?) {
        self.id = id
        self.notificationKey = notificationKey
        self.atMilliseconds = atMilliseconds
        self.kind = kind
        self.detailJSON = detailJSON
    }
}
