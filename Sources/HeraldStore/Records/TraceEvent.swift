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
    /// The device acknowledged the notification (the v1 name; the engine writes ``acknowledged``).
    public static let delivered = Self(rawValue: "delivered")
    /// The notification was sent to the device over its link (again after a reconnect: `attempt` > 1).
    public static let sent = Self(rawValue: "sent")
    /// The device acknowledged the notification: it is delivered.
    public static let acknowledged = Self(rawValue: "acknowledged")
    /// The notification was dropped for a reason in its detail (e.g. its token was unregistered).
    public static let discarded = Self(rawValue: "discarded")
    /// A fault rule applied to the request (detail: the rule and what it did; docs/faults.md). Kept in memory, not in
    /// the store: a request a rule answers with an error has no stored notification.
    public static let fault = Self(rawValue: "fault")

    // Reports from the device (docs/device-link.md, `report`).

    /// The device showed the notification (detail: what it showed).
    public static let displayed = Self(rawValue: "displayed")
    /// A notification service extension changed the content before it was shown.
    public static let modified = Self(rawValue: "modified")
    /// The device did not show the notification (detail: why, e.g. a duplicate or no authorization).
    public static let dropped = Self(rawValue: "dropped")
    /// A silent (background) notification was handed to the app.
    public static let background = Self(rawValue: "background")
    /// The user chose an action (detail: the action identifier and any text typed).
    public static let action = Self(rawValue: "action")
    /// The user dismissed the notification.
    public static let dismissed = Self(rawValue: "dismissed")
    /// The device removed the displayed notification (replaced or removed by the app).
    public static let removed = Self(rawValue: "removed")

    /// The user expanded the notification (its content extension, if any, rendered it).
    public static let expanded = Self(rawValue: "expanded")
    /// The user pressed the content extension's media play/pause button.
    public static let media = Self(rawValue: "media")

    // A web app's reports (docs/web-push.md). Stored as their names (``TraceText`` has no letter for them): a web push
    // message has two or three events of its own, not worth a frozen code yet.

    /// The device decrypted a web push message for its web app.
    public static let decrypted = Self(rawValue: "decrypted")
    /// The web app showed a notification (detail: its title, body and tag).
    public static let shown = Self(rawValue: "shown")
    /// The web push message showed nothing (detail: why).
    public static let notShown = Self(rawValue: "not-shown")

    /// The events a device may report over its link.
    public static let deviceReports: Set<TraceEventKind> = [
        .displayed, .modified, .dropped, .background, .action, .dismissed, .removed, .expanded, .media, .decrypted, .shown, .notShown,
    ]

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
