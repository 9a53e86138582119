import HeraldCore

/// A notification as it reaches the device: the provider's payload bytes and the headers the
/// device can see.
public struct IncomingNotification: Sendable, Hashable {
    /// The `apns-id`.
    public var apnsID: NotificationID
    /// The app it is for (the topic less its push-type suffix).
    public var bundleID: String
    /// `apns-collapse-id`: the request identifier, so a newer notification replaces an older one.
    public var collapseID: String?
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`.
    public var priority: APNSPriority
    /// The JSON payload exactly as the provider sent it.
    public var payload: [UInt8]
    /// When the server accepted it (milliseconds since the epoch), when known.
    ///
    /// With the `apns-id` it names one accepted notification: the device shows it at most once, however often it is
    /// resent, while a provider that sends again under an `apns-id` it used before sends a new notification.
    public var acceptedAtMilliseconds: Int64?
    /// A fault rule's `extensionTimeout` (docs/faults.md): the app's notification service extension, if it runs,
    /// runs out of its time budget at once.
    public var extensionTimeout: Bool
    /// The token it was sent to, when known: a `liveactivity` push's token says which activity (or which type's
    /// push-to-start) it addresses.
    public var token: DeviceToken?

    /// Creates an incoming notification.
    public init(
        apnsID: NotificationID,
        bundleID: String,
        collapseID: String? = nil,
        pushType: PushType = .alert,
        priority: APNSPriority = .immediate,
        payload: [UInt8],
        acceptedAtMilliseconds: Int64? = nil,
        extensionTimeout: Bool = false,
        token: DeviceToken? = nil
    ) {
        self.token = token
        self.apnsID = apnsID
        self.bundleID = bundleID
        self.collapseID = collapseID
        self.pushType = pushType
        self.priority = priority
        self.payload = payload
        self.acceptedAtMilliseconds = acceptedAtMilliseconds
        self.extensionTimeout = extensionTimeout
    }

    /// What makes a resend the same notification: the `apns-id`, and the acceptance time when known.
    public var deliveryKey: String {
        acceptedAtMilliseconds.map { "\(apnsID.key)@\($0)" } ?? apnsID.key
    }

    /// The notification the gateway accepted, as delivered.
    public init(_ accepted: AcceptedNotification) {
        self.init(
            apnsID: accepted.id,
            bundleID: accepted.bundleID,
            collapseID: accepted.collapseID,
            pushType: accepted.pushType,
            priority: accepted.priority,
            payload: accepted.payload,
            acceptedAtMilliseconds: accepted.acceptedAtMilliseconds,
            token: accepted.token
        )
    }

    /// The push types the device runtime handles: alerts and background pushes go to the app
    /// through UserNotifications; the others (VoIP, Live Activities, widgets, …) go to frameworks
    /// the simulator does not model.
    static let handledPushTypes: Set<PushType> = [.alert, .background]

    /// The largest payload APNs accepts for any push type (VoIP, spec §A.6).
    static let maximumPayloadSize = PushType.voip.maximumPayloadSize
}
