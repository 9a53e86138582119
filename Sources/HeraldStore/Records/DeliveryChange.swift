import HeraldCore

/// One durable change the delivery engine makes: a trace event, and optionally the notification's new state.
///
/// The engine batches changes and hands them to ``DeliveryStore/record(_:)``, which writes a batch in one
/// transaction. A state change applies only while the notification is still ``NotificationState/stored``:
/// `delivered`, `expired`, `replaced` and `discarded` are final, so a late acknowledgement of a notification
/// that was replaced meanwhile is traced but does not change its state.
///
/// A change names its notification by store sequence when the engine knows it: a provider may reuse an
/// `apns-id`, and then only the sequence tells the older notification from the newer (docs/delivery.md, rule 13).
public struct DeliveryChange: Hashable, Sendable {
    /// The notification's `apns-id`.
    public var notificationID: NotificationID
    /// The notification's store sequence (``StoredNotification/sequence``), or `nil` when unknown: the change then
    /// applies to whichever notification holds the `apns-id`.
    public var sequence: Int64?
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
        sequence: Int64? = nil,
        event: TraceEventKind,
        newState: NotificationState? = nil,
        atMilliseconds: Int64,
        detailJSON: String? = nil
    ) {
        self.notificationID = notificationID
        self.sequence = sequence
        self.event = event
        self.newState = newState
        self.atMilliseconds = atMilliseconds
        self.detailJSON = detailJSON
    }
}

extension DeliveryChange {
    /// Fails with ``StoreError/invalidRecord`` unless every change can be stored: a kind of 1 to 64 lowercase letters
    /// and `-`, and a detail that is a JSON object (each store checks the rest of the JSON as it writes it).
    package static func checkStorable(_ changes: [DeliveryChange]) throws {
        for change in changes {
            guard TraceText.isValidKind(change.event.rawValue) else {
                throw StoreError.invalidRecord.with(detail: "trace event kind \(change.event.rawValue)")
            }
            if let detail = change.detailJSON, !TraceText.looksLikeObject(detail) {
                throw StoreError.invalidRecord.with(detail: "trace event detail is not a JSON object")
            }
        }
    }
}
