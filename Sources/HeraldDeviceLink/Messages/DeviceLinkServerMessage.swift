import HeraldCore

/// A frame the server sends to a device (docs/device-link.md, "Server → client").
///
/// Read one with ``init(frame:)`` and write one with ``frame()``.
public enum DeviceLinkServerMessage: Sendable, Hashable {
    /// `welcome`: the answer to a successful `hello`; pending notifications follow it.
    case welcome(DeviceLinkWelcome)
    /// `registered`: the answer to `register`, with the app's token.
    case registered(DeviceLinkRegistration)
    /// `unregistered`: the answer to `unregister`; pushes to the token now get `410 Unregistered`.
    case unregistered(DeviceLinkUnregistration)
    /// `notification`: a push for an app on the device; the device answers with `ack`.
    case notification(DeviceLinkNotification)
    /// `error`: a frame was refused.
    case error(DeviceLinkError)
    /// `interact`: the console asks the device to do what a user would (tap, choose an action, …); the device
    /// answers with `interacted` carrying the same `id`.
    case interact(DeviceLinkInteraction)
    /// `activity-token-registered`: the answer to `activity-token`; providers may push to the token.
    case activityTokenRegistered(DeviceLinkActivityTokenReply)
    /// `activity-token-retired`: the answer to `retire-activity-token`; pushes to the token get `410 Unregistered`.
    case activityTokenRetired(DeviceLinkActivityTokenReply)
    /// `channel-subscribed`: the answer to `subscribe-channel`.
    case channelSubscribed(DeviceLinkChannelReply)
    /// `channel-unsubscribed`: the answer to `unsubscribe-channel`.
    case channelUnsubscribed(DeviceLinkChannelReply)
    /// `broadcast`: a provider's broadcast on a channel the device subscribes to (no `ack`).
    case broadcast(DeviceLinkBroadcast)
    /// `web-push-subscribed`: the answer to `web-push-subscribe`, with the subscription's endpoint.
    case webPushSubscribed(DeviceLinkWebPushSubscription)
    /// `web-push-unsubscribed`: the answer to `web-push-unsubscribe`; pushes to the endpoint get `410 Unregistered`.
    case webPushUnsubscribed(DeviceLinkWebPushUnsubscription)
}

/// The body of `interact`: one user interaction for the device to run.
public struct DeviceLinkInteraction: Sendable, Hashable {
    /// What the user does: a `RawRepresentable` struct, so that a kind a device does not know is data it can
    /// refuse with an `interacted` error rather than a frame it cannot read.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The wire form, e.g. `action`.
        public let rawValue: String

        /// Creates a kind from its wire form.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Tap the notification (its default action); needs `identifier`.
        public static let tap = Self(rawValue: "tap")
        /// Choose an action button; needs `identifier` and `action`, and `text` for a text input action.
        public static let action = Self(rawValue: "action")
        /// Clear the notification; needs `identifier`.
        public static let dismiss = Self(rawValue: "dismiss")
        /// Long-press the notification (its content extension renders it); needs `identifier`.
        public static let expand = Self(rawValue: "expand")
        /// Close the expanded interface.
        public static let collapse = Self(rawValue: "collapse")
        /// Press the expanded interface's media play/pause button.
        public static let playPause = Self(rawValue: "playPause")
        /// Move the app to another state; needs `state` (`foreground`, `background`, `notRunning`, …).
        public static let setState = Self(rawValue: "setState")
        /// Remove a web app's permission for notifications (Safari's Settings → Websites → Notifications); the app is
        /// the web app's origin.
        public static let removePermission = Self(rawValue: "removePermission")

        /// Every kind a device runs.
        public static let allKnown: [Kind] = [.tap, .action, .dismiss, .expand, .collapse, .playPause, .setState, .removePermission]

        /// Whether devices know this kind.
        public var isKnown: Bool { Self.allKnown.contains(self) }

        /// The wire form.
        public var description: String { rawValue }
    }

    /// Chosen by the server; the device's `interacted` carries it back.
    public var id: String
    /// The app, e.g. `com.example.app`.
    public var bundleID: String
    /// What the user does.
    public var kind: Kind
    /// The notification request identifier (for `tap`, `action`, `dismiss`, `expand`).
    public var identifier: String?
    /// The action identifier (for `action`).
    public var action: String?
    /// The text typed (for a text input `action`).
    public var text: String?
    /// The app state to move to (for `setState`).
    public var state: String?

    /// Creates an interaction.
    public init(
        id: String,
        bundleID: String,
        kind: Kind,
        identifier: String? = nil,
        action: String? = nil,
        text: String? = nil,
        state: String? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.kind = kind
        self.identifier = identifier
        self.action = action
        self.text = text
        self.state = state
    }
}

/// The body of `welcome`.
public struct DeviceLinkWelcome: Sendable, Hashable {
    /// The device id.
    public var deviceID: String
    /// The device's name.
    public var name: String
    /// The secret of a device that just enrolled (shown once: keep it to reconnect); `nil` otherwise.
    public var secret: String?

    /// Creates a welcome.
    public init(deviceID: String, name: String, secret: String? = nil) {
        self.deviceID = deviceID
        self.name = name
        self.secret = secret
    }
}

/// The body of `registered`.
public struct DeviceLinkRegistration: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The app's bundle id.
    public var bundleID: String
    /// The token's environment.
    public var environment: APNSEnvironment
    /// The app's device token: the same on every connection until the app is unregistered.
    public var token: DeviceToken
    /// Whether the token was issued by this request (`false`: the app already had it).
    public var isNew: Bool

    /// Creates a registration.
    public init(id: String?, bundleID: String, environment: APNSEnvironment, token: DeviceToken, isNew: Bool) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.token = token
        self.isNew = isNew
    }
}

/// The body of `unregistered`.
public struct DeviceLinkUnregistration: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The app's bundle id.
    public var bundleID: String
    /// The token's environment.
    public var environment: APNSEnvironment
    /// The token that stopped working.
    public var token: DeviceToken
    /// When it stopped, in milliseconds since the epoch (the `timestamp` of the provider's `410`).
    public var unregisteredAtMilliseconds: Int64

    /// Creates an unregistration.
    public init(id: String?, bundleID: String, environment: APNSEnvironment, token: DeviceToken, unregisteredAtMilliseconds: Int64) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.token = token
        self.unregisteredAtMilliseconds = unregisteredAtMilliseconds
    }
}

/// The body of `notification`: one push, as the provider sent it.
public struct DeviceLinkNotification: Sendable, Hashable {
    /// The `apns-id`; a device that already has it drops the notification (delivery is at-least-once).
    public var apnsID: NotificationID
    /// The device token it was sent to (which app on the device).
    public var token: DeviceToken
    /// The app's bundle id.
    public var bundleID: String
    /// The `apns-topic`.
    public var topic: String
    /// The `apns-push-type`.
    public var pushType: PushType
    /// The `apns-priority`.
    public var priority: APNSPriority
    /// The `apns-expiration` in seconds since the epoch, `0` for "now or never", `nil` when absent.
    public var expiration: Int64?
    /// The `apns-collapse-id`.
    public var collapseID: String?
    /// When the server accepted it, in milliseconds since the epoch.
    public var acceptedAtMilliseconds: Int64
    /// 1 for the first send; larger when it is sent again after a connection was lost before its `ack`.
    public var attempt: Int
    /// The provider's JSON payload, byte for byte.
    public var payload: [UInt8]
    /// `extensionTimeout`: a fault rule says the device's notification service extension runs out of its time budget
    /// for this notification (docs/faults.md); only a notification with `mutable-content` runs one. Absent: `false`.
    public var extensionTimeout: Bool

    /// Creates a notification frame body.
    public init(
        apnsID: NotificationID,
        token: DeviceToken,
        bundleID: String,
        topic: String,
        pushType: PushType,
        priority: APNSPriority,
        expiration: Int64?,
        collapseID: String?,
        acceptedAtMilliseconds: Int64,
        attempt: Int,
        payload: [UInt8],
        extensionTimeout: Bool = false
    ) {
        self.apnsID = apnsID
        self.token = token
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.acceptedAtMilliseconds = acceptedAtMilliseconds
        self.attempt = attempt
        self.payload = payload
        self.extensionTimeout = extensionTimeout
    }

    /// The frame body for an accepted notification.
    public init(_ notification: AcceptedNotification, attempt: Int, extensionTimeout: Bool = false) {
        self.init(
            apnsID: notification.id,
            token: notification.token,
            bundleID: notification.bundleID,
            topic: notification.topic,
            pushType: notification.pushType,
            priority: notification.priority,
            expiration: notification.expiration,
            collapseID: notification.collapseID,
            acceptedAtMilliseconds: notification.acceptedAtMilliseconds,
            attempt: attempt,
            payload: notification.payload,
            extensionTimeout: extensionTimeout
        )
    }
}
