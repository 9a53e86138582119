import HeraldCore

/// One durable change the delivery engine makes: a trace event, and optionally the notification's new state.
///
/// The engine batches changes and hands them to ``DeliveryStore/record(_:)``, which writes a batch in one
/// transaction. A state change applies only while the notification is still ``NotificationState/stored``:
/// `delivered`, `expired`, `replaced` and `discarded` are final, so a late acknowledgement of a notification
/// that was replaced meanwhile is traced but does not change its state.
public struct DeliveryChange: Hashable, Sendable {
    /// The notification's `apns-id`.
    public var notificationID: NotificationID
    /// The event to append to its trace.
    public var event: TraceEventKind
    /// The state to move it to, or `nil` to leave the state as it is.
    public var newState: NotificationState?
    /// When it happened, in milliseconds since the epoch.
    public var atMilliseconds: Int64
    /// Details as the text of a JSON object, or `nil`.
    public var detailJSON: String?

    /// Creates a change.
    public init(
        notificationID: NotificationID,
        event: TraceEventKind,
        newState: NotificationState? = nil,
        atMilliseconds: Int64,
        detailJSON: String? = nil
    ) {
        self.notificationID = notificationID
        self.event = event
        self.newState = newState
        self.atMilliseconds = atMilliseconds
        self.detailJSON = detailJSON
    }
}
