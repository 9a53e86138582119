import HeraldCore

/// A frame a device sends to the server (docs/device-link.md, "Client → server").
///
/// Read one with ``init(frame:)`` and write one with ``frame()``: each frame is one JSON object whose
/// `type` member names the case.
public enum DeviceLinkClientMessage: Sendable, Hashable {
    /// `hello`: the first frame, authenticating the device or asking to enrol it.
    case hello(DeviceLinkHello)
    /// `register`: an app asks for its device token.
    case register(DeviceLinkAppRequest)
    /// `unregister`: an app is removed; its token stops working.
    case unregister(DeviceLinkAppRequest)
    /// `ack`: the device received a notification (no reply).
    case ack(apnsID: NotificationID)
    /// `report`: what became of a notification on the device (no reply).
    case report(DeviceLinkReport)
    /// `screen`: the whole device as a console shows it, the exact bytes of a JSON object (the device's
    /// `DeviceSnapshot`); sent after the registrations and after every change (no reply).
    case screen(json: [UInt8])
    /// `interacted`: the device ran the `interact` request with this `id` (no reply).
    case interacted(DeviceLinkInteractionResult)
    /// `activity-token`: the device's ActivityKit has a Live Activity token (an activity's push token or a type's
    /// push-to-start token) for providers to push to; the answer is `activity-token-registered`.
    case activityToken(DeviceLinkActivityToken)
    /// `retire-activity-token`: the token stopped (its activity ended and was dismissed, or it rotated); pushes to
    /// it now get `410 Unregistered`. The answer is `activity-token-retired`.
    case retireActivityToken(id: String?, token: DeviceToken)
    /// `subscribe-channel`: an activity of the app follows a broadcast channel; the server sends it what providers
    /// broadcast there from now on (and the channel's kept message at once). The answer is `channel-subscribed`.
    case subscribeChannel(DeviceLinkChannelRequest)
    /// `unsubscribe-channel`: no activity of the app follows the channel any more. The answer is
    /// `channel-unsubscribed`.
    case unsubscribeChannel(DeviceLinkChannelRequest)
    /// `web-push-subscribe`: a web app on the device subscribed (the Push API's `subscribe()`); the answer is
    /// `web-push-subscribed`, with the endpoint its server sends to.
    case webPushSubscribe(DeviceLinkWebPushSubscriptionRequest)
    /// `web-push-unsubscribe`: the subscription ended (the page unsubscribed, or the browser revoked it); pushes to it
    /// now get `410 Unregistered`. The answer is `web-push-unsubscribed`.
    case webPushUnsubscribe(id: String?, token: DeviceToken)
}

/// The body of `interacted`: how an `interact` request went.
public struct DeviceLinkInteractionResult: Sendable, Hashable {
    /// The `id` of the `interact` request.
    public var id: String
    /// Why the device could not run it (no such app, notification or action); `nil` when it ran.
    public var error: String?

    /// Creates a result.
    public init(id: String, error: String? = nil) {
        self.id = id
        self.error = error
    }
}

/// How a device identifies itself in `hello`.
public enum DeviceLinkHello: Sendable, Hashable {
    /// A known device: its id and secret (`herald devices add NAME` prints them).
    case device(id: String, secret: String)
    /// A new device asking the server to create it (only when the server allows self-enrolment); the
    /// `welcome` then carries its id and secret, to be kept for the next connection.
    case enrol(name: String)
}

/// The body of `register` and `unregister`: one app on the device.
public struct DeviceLinkAppRequest: Sendable, Hashable {
    /// Chosen by the device and echoed in the reply, so replies can be matched to requests.
    public var id: String?
    /// The app's bundle id, e.g. `com.example.app`.
    public var bundleID: String
    /// The APNs environment the token is for (`sandbox` when the frame leaves it out).
    public var environment: APNSEnvironment

    /// Creates a request.
    public init(id: String?, bundleID: String, environment: APNSEnvironment) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
    }
}

/// The body of `report`: what became of a notification on the device.
public struct DeviceLinkReport: Sendable, Hashable {
    /// The notification's `apns-id`.
    public var apnsID: NotificationID
    /// What happened.
    public var event: DeviceLinkReportEvent
    /// Details: the exact bytes of a JSON object, or `nil`.
    public var detail: [UInt8]?

    /// Creates a report; `detail` must be the text of a JSON object.
    public init(apnsID: NotificationID, event: DeviceLinkReportEvent, detail: [UInt8]? = nil) {
        self.apnsID = apnsID
        self.event = event
        self.detail = detail
    }
}

/// The `event` of a `report`: the trace event kinds a device may add to a notification's trace.
public struct DeviceLinkReportEvent: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire form, e.g. `displayed`.
    public let rawValue: String

    /// Creates an event from its wire form; ``isKnown`` says whether a server accepts it.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The device showed the notification.
    public static let displayed = Self(rawValue: "displayed")
    /// A notification service extension changed the content before it was shown.
    public static let modified = Self(rawValue: "modified")
    /// The device did not show the notification (detail: why).
    public static let dropped = Self(rawValue: "dropped")
    /// A background notification was handed to the app.
    public static let background = Self(rawValue: "background")
    /// The user chose an action.
    public static let action = Self(rawValue: "action")
    /// The user dismissed the notification.
    public static let dismissed = Self(rawValue: "dismissed")
    /// The displayed notification was removed (replaced, or removed by the app).
    public static let removed = Self(rawValue: "removed")

    /// The user expanded the notification (its content extension rendered it).
    public static let expanded = Self(rawValue: "expanded")
    /// The user pressed the content extension's media play/pause button.
    public static let media = Self(rawValue: "media")

    // A web app's message (docs/web-push.md): decrypted, then shown or not.

    /// A web push message was decrypted (RFC 8291) for its web app.
    public static let decrypted = Self(rawValue: "decrypted")
    /// A web app's notification was shown (detail: its title, body and tag).
    public static let shown = Self(rawValue: "shown")
    /// A web push message showed no notification (detail: why — it did not decrypt, the service worker showed
    /// nothing, …).
    public static let notShown = Self(rawValue: "not-shown")

    /// Every event a server accepts.
    public static let allKnown: [DeviceLinkReportEvent] = [
        .displayed, .modified, .dropped, .background, .action, .dismissed, .removed, .expanded, .media, .decrypted, .shown, .notShown,
    ]

    /// Whether a server accepts this event.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// The wire form.
    public var description: String { rawValue }
}
