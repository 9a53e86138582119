/// Row counts, for the CLI (`herald trace`, `herald device`) and the inspection API.
public struct StoreCounts: Hashable, Sendable {
    /// All notifications held, whatever their state.
    public var notifications: Int
    /// Notifications per state (states with no notification are absent).
    public var notificationsByState: [NotificationState: Int]
    /// All trace events.
    public var traceEvents: Int
    /// All device tokens ever registered.
    public var deviceTokens: Int
    /// Device tokens not unregistered.
    public var activeDeviceTokens: Int
    /// Signing keys.
    public var signingKeys: Int
    /// Devices (`herald devices add`, or enrolled over the device link).
    public var devices: Int

    /// Creates a set of counts.
    public init(
        notifications: Int,
        notificationsByState: [NotificationState: Int],
        traceEvents: Int,
        deviceTokens: Int,
        activeDeviceTokens: Int,
        signingKeys: Int,
        devices: Int = 0
    ) {
        self.notifications = notifications
        self.notificationsByState = notificationsByState
        self.traceEvents = traceEvents
        self.deviceTokens = deviceTokens
        self.activeDeviceTokens = activeDeviceTokens
        self.signingKeys = signingKeys
        self.devices = devices
    }
}
