/// The `code` of an `error` frame (docs/device-link.md, "Errors").
///
/// A `RawRepresentable` struct, not an enum, so that a code added by a newer server is data to a client,
/// not a decoding failure.
public struct DeviceLinkErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent, e.g. `malformed-frame`.
    public let rawValue: String

    /// Creates a code from its wire form.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The frame is not a JSON object, or a member is missing or of the wrong type.
    public static let malformedFrame = Self(rawValue: "malformed-frame")
    /// The frame's `type` is not one the receiver knows.
    public static let unknownType = Self(rawValue: "unknown-type")
    /// A frame other than a well-formed `hello` arrived before the device authenticated (a malformed or unknown frame
    /// included: the message says what was wrong with it).
    public static let notAuthenticated = Self(rawValue: "not-authenticated")
    /// The device id or secret is wrong; the server closes the connection (WebSocket code 1008).
    public static let unauthorized = Self(rawValue: "unauthorized")
    /// `hello` asked to enrol but the server does not allow self-enrolment.
    public static let enrolmentDisabled = Self(rawValue: "enrolment-disabled")
    /// A second `hello` on a connection that already authenticated.
    public static let alreadyAuthenticated = Self(rawValue: "already-authenticated")
    /// The bundle id is empty, too long or has characters other than letters, digits, `.`, `-` and `_`.
    public static let invalidBundleID = Self(rawValue: "invalid-bundle-id")
    /// The environment is neither `sandbox` nor `production`.
    public static let invalidEnvironment = Self(rawValue: "invalid-environment")
    /// `unregister` for an app that has no active token on this device; `retire-activity-token` or
    /// `web-push-unsubscribe` of a token that is not one of the device's active tokens of that kind.
    public static let notRegistered = Self(rawValue: "not-registered")
    /// An `ack` for a notification that is not waiting for an acknowledgement on this connection, or a `report` about a
    /// notification that was not sent to this device (another device's, or an unknown `apns-id`).
    public static let unknownNotification = Self(rawValue: "unknown-notification")
    /// A `report` whose `event` is not one of the reportable events.
    public static let unknownEvent = Self(rawValue: "unknown-event")
    /// The message is larger than the server accepts (64 KiB by default); it was dropped.
    public static let frameTooLarge = Self(rawValue: "frame-too-large")
    /// A fault rule keeps the device offline (docs/faults.md): the server closes the link (WebSocket code 1013) and
    /// refuses the device's `hello` until the window ends; the error's `retryAfterMs` says when it may come back.
    public static let deviceOffline = Self(rawValue: "device-offline")
    /// An `activity-token`'s `kind` is neither `activity` nor `push-to-start`.
    public static let invalidKind = Self(rawValue: "invalid-kind")
    /// An activity token or a web push subscription id is not 16 to 200 hex digits (an even number).
    public static let invalidToken = Self(rawValue: "invalid-token")
    /// An activity token or web push subscription id is already registered for another device, app or kind, or was
    /// retired.
    public static let tokenTaken = Self(rawValue: "token-taken")
    /// The device already holds ``DeviceLinkClientMessage/maximumActivityTokens`` active activity tokens.
    public static let tooManyTokens = Self(rawValue: "too-many-tokens")
    /// `subscribe-channel` named a malformed channel id.
    public static let invalidChannel = Self(rawValue: "invalid-channel")
    /// `subscribe-channel` named a channel the app does not have in that environment.
    public static let unknownChannel = Self(rawValue: "unknown-channel")
    /// The connection already subscribes to the most channels it may.
    public static let tooManySubscriptions = Self(rawValue: "too-many-subscriptions")
    /// `web-push-subscribe` named an origin that is not `https://host[:port]` or `http://host[:port]`, or is over 255
    /// bytes.
    public static let invalidOrigin = Self(rawValue: "invalid-origin")
    /// `web-push-subscribe`'s `applicationServerKey` is not a P-256 public key in base64url (65 bytes, uncompressed).
    public static let invalidApplicationServerKey = Self(rawValue: "invalid-application-server-key")
    /// The server failed (e.g. its store); the request may be retried.
    public static let `internal` = Self(rawValue: "internal")

    /// The code as sent.
    public var description: String { rawValue }
}
