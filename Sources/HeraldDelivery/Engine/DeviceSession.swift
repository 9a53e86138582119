import HeraldCore
import HeraldStore
import Synchronization

/// Identifies one device-link connection for as long as it is open; never reused within a process.
public struct DeviceSessionID: Hashable, Sendable, CustomStringConvertible {
    /// The number, increasing from 1.
    public let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    /// A new id, distinct from every other in this process.
    public static func next() -> DeviceSessionID {
        DeviceSessionID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    public var description: String { "session-\(rawValue)" }
}

/// A connected device as the delivery engine sees it: somewhere to send notifications.
///
/// The device link implements it over a WebSocket; tests implement it in memory. Both methods are called
/// from the engine's task, must not block, and must not fail: a closed connection drops the frame (the
/// engine hears of the close through ``DeliveryEngine/sessionClosed(_:)`` and redelivers what was not
/// acknowledged).
public protocol DeviceSession: Sendable {
    /// The connection's id.
    var id: DeviceSessionID { get }
    /// The device the connection authenticated as.
    var deviceID: String { get }
    /// Sends a `notification` frame.
    func deliver(_ delivery: NotificationDelivery)
    /// Sends an `error` frame about a notification (e.g. an acknowledgement of one never sent on this link).
    func refuse(_ id: NotificationID, code: String, message: String)
    /// Sends an `error` frame with this code, message and `retryAfterMs`, then closes the connection: a fault rule
    /// took the device offline (docs/faults.md). The engine already counts the session as closed.
    func disconnect(code: String, message: String, retryAfterMilliseconds: Int64)
}

/// One notification on its way to a device.
public struct NotificationDelivery: Sendable, Hashable {
    /// The notification as accepted.
    public var notification: AcceptedNotification
    /// 1 for the first send, then 2, 3… each time it is sent again after a lost connection.
    public var attempt: Int
    /// A fault rule's `extensionTimeout`: the device's notification service extension runs out of its time budget.
    public var extensionTimeout: Bool

    /// Creates a delivery.
    public init(notification: AcceptedNotification, attempt: Int, extensionTimeout: Bool = false) {
        self.notification = notification
        self.attempt = attempt
        self.extensionTimeout = extensionTimeout
    }
}

/// What a device says became of a notification (a `report` frame).
public struct DeviceReport: Sendable, Hashable {
    /// The notification's `apns-id`.
    public var notificationID: NotificationID
    /// One of ``TraceEventKind/deviceReports``.
    public var event: TraceEventKind
    /// Details as the text of a JSON object, or `nil`.
    public var detailJSON: String?

    /// Creates a report.
    public init(notificationID: NotificationID, event: TraceEventKind, detailJSON: String?) {
        self.notificationID = notificationID
        self.event = event
        self.detailJSON = detailJSON
    }
}
