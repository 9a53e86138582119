import HeraldCore

/// A simulated device known to the server: the identity a device-link connection authenticates as.
public struct DeviceRecord: Hashable, Sendable {
    /// The device id: a lowercase UUID, made by the store.
    public var id: String
    /// A name for people (`herald devices add NAME`); not unique.
    public var name: String
    /// When the device was added, in milliseconds since the epoch.
    public var createdAtMilliseconds: Int64

    /// Creates a device record.
    public init(id: String, name: String, createdAtMilliseconds: Int64) {
        self.id = id
        self.name = name
        self.createdAtMilliseconds = createdAtMilliseconds
    }
}

/// A new device and the secret it authenticates with; the secret is shown once and stored only as a hash.
public struct DeviceCredentials: Hashable, Sendable {
    /// The device.
    public var device: DeviceRecord
    /// The secret, 64 lowercase hex digits (32 random bytes).
    public var secret: String

    /// Creates credentials.
    public init(device: DeviceRecord, secret: String) {
        self.device = device
        self.secret = secret
    }
}

/// The answer to an app's registration on a device: its token, and whether it was issued just now.
public struct AppTokenRegistration: Hashable, Sendable {
    /// The active token of the app on the device.
    public var token: TokenRecord
    /// `true` when the token was issued by this call, `false` when the app already had an active token.
    public var isNew: Bool

    /// Creates a registration.
    public init(token: TokenRecord, isNew: Bool) {
        self.token = token
        self.isNew = isNew
    }
}
