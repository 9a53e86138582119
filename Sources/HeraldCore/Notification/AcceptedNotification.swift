/// A notification the gateway accepted: what the store must hold durably before the provider gets `200`.
public struct AcceptedNotification: Sendable, Hashable {
    /// The `apns-id` (sent by the provider or generated).
    public var id: NotificationID
    /// The device token the notification is addressed to.
    public var token: DeviceToken
    /// The `apns-topic` as sent (or defaulted from a single-topic certificate).
    public var topic: String
    /// The app's bundle id: the topic less its push-type suffix.
    public var bundleID: String
    /// The environment of the token and of the connection.
    public var environment: APNSEnvironment
    /// The push type (from `apns-push-type`, or inferred from the topic when absent).
    public var pushType: PushType
    /// The priority (`apns-priority`, 10 when absent).
    public var priority: APNSPriority
    /// `apns-expiration` in seconds since the epoch: `nil` when absent (storage policy), `0` for "now or never".
    public var expiration: Int64?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// The JSON payload exactly as received.
    public var payload: [UInt8]
    /// When the gateway accepted it, in milliseconds since the epoch.
    public var acceptedAtMilliseconds: Int64

    /// Creates an accepted notification.
    public init(
        id: NotificationID,
        token: DeviceToken,
        topic: String,
        bundleID: String,
        environment: APNSEnvironment,
        pushType: PushType,
        priority: APNSPriority,
        expiration: Int64?,
        collapseID: String?,
        payload: [UInt8],
        acceptedAtMilliseconds: Int64
    ) {
        self.id = id
        self.token = token
        self.topic = topic
        self.bundleID = bundleID
        self.environment = environment
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.acceptedAtMilliseconds = acceptedAtMilliseconds
    }
}
