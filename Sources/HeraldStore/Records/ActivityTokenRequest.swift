import HeraldCore

/// A Live Activity token a device reports, to be registered (``DeviceRegistry/registerActivityToken(_:limit:)``).
public struct ActivityTokenRequest: Hashable, Sendable {
    /// The device holding it.
    public var deviceID: String
    /// The app whose activity (or activity type) it addresses.
    public var bundleID: String
    /// The environment of the gateway that may push to it.
    public var environment: APNSEnvironment
    /// `activity` or `push-to-start`.
    public var kind: TokenKind
    /// The token the device's ActivityKit made.
    public var token: DeviceToken
    /// The `ActivityAttributes` type name.
    public var activityType: String

    /// Creates a request.
    public init(deviceID: String, bundleID: String, environment: APNSEnvironment, kind: TokenKind, token: DeviceToken, activityType: String) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.environment = environment
        self.kind = kind
        self.token = token
        self.activityType = activityType
    }
}
