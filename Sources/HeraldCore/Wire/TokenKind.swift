/// What a token addresses: an app on a device, one Live Activity, or the start of a type of Live Activity
/// (docs/live-activities.md, "Tokens").
///
/// Why three: ActivityKit's tokens are distinct from the device token (spec §A.11), and a provider's push must
/// use the kind its push type needs: `liveactivity` pushes go to the two activity kinds, every other push type
/// to a device token.
public struct TokenKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Codable {
    /// The wire form: `device`, `activity`, `push-to-start` or `web-push`.
    public let rawValue: String

    /// Creates a kind from its wire form; ``isKnown`` says whether Herald has it.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An app's device token (`registerForRemoteNotifications`).
    public static let device = Self(rawValue: "device")
    /// One Live Activity's push token (`Activity.pushToken`): `update` and `end` pushes.
    public static let activity = Self(rawValue: "activity")
    /// A type of Live Activity's push-to-start token (`Activity.pushToStartToken`): `start` pushes.
    public static let pushToStart = Self(rawValue: "push-to-start")
    /// A web app's push subscription (the Push API's `PushSubscription`, docs/web-push.md): the token is the
    /// subscription's id, the last part of its endpoint `/push/<id>`; the record's bundle id is the web app's origin and
    /// its qualifier (``TokenRecord``'s `activityType`) the subscription's `applicationServerKey`. Takes web pushes
    /// only, on the push service's path, never `POST /3/device`.
    public static let webPush = Self(rawValue: "web-push")

    /// Every kind Herald has.
    public static let allKnown: [TokenKind] = [.device, .activity, .pushToStart, .webPush]

    /// Whether Herald has this kind.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// Whether the token addresses Live Activities (takes `liveactivity` pushes only).
    public var isActivityKind: Bool { self == .activity || self == .pushToStart }

    /// Whether the token is a web push subscription (takes web pushes only).
    public var isWebPush: Bool { self == .webPush }

    /// The wire form.
    public var description: String { rawValue }
}
