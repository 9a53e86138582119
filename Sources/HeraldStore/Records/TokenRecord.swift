import HeraldCore

/// A token's registry entry: which app and environment it belongs to, what it addresses, and whether it is still
/// active.
public struct TokenRecord: Hashable, Sendable {
    /// The token.
    public var token: DeviceToken
    /// The bundle id of the app the token was issued to.
    public var bundleID: String
    /// The environment the token belongs to; a push from the other environment gets `BadDeviceToken`.
    public var environment: APNSEnvironment
    /// The simulated device holding the token, when known.
    public var deviceID: String?
    /// When the token was issued, in milliseconds since the epoch.
    public var registeredAtMilliseconds: Int64
    /// When the token stopped being valid, in milliseconds since the epoch; `nil` while active.
    ///
    /// APNs answers `410 Unregistered` with this value as `timestamp` (spec §A.4), which is why an
    /// unregistered token stays in the registry instead of being deleted.
    public var unregisteredAtMilliseconds: Int64?
    /// What the token addresses: the app (`device`), one Live Activity, or the start of a type of activity.
    public var kind: TokenKind
    /// For the activity kinds, the `ActivityAttributes` type name (`attributes-type`); `nil` for a device token.
    public var activityType: String?

    /// Creates a registry entry.
    public init(
        token: DeviceToken,
        bundleID: String,
        environment: APNSEnvironment,
        deviceID: String?,
        registeredAtMilliseconds: Int64,
        unregisteredAtMilliseconds: Int64?,
        kind: TokenKind = .device,
        activityType: String? = nil
    ) {
        self.kind = kind
        self.activityType = activityType
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.deviceID = deviceID
        self.registeredAtMilliseconds = registeredAtMilliseconds
        self.unregisteredAtMilliseconds = unregisteredAtMilliseconds
    }

    /// Whether the token can still receive notifications.
    public var isActive: Bool { unregisteredAtMilliseconds == nil }
}
