import HeraldCore

/// What the delivery engine needs from the store: the notifications still waiting, and a place to write
/// what became of them.
public protocol DeliveryStore: Sendable {
    /// Every notification in state ``NotificationState/stored``, oldest first (by sequence).
    ///
    /// The engine reads it once at start-up: a notification that got `200` before a crash is in this list
    /// until it is delivered, expires or is replaced.
    func pendingNotifications() async throws -> [StoredNotification]

    /// Writes a batch of changes in one transaction, in order.
    ///
    /// A change for an unknown `apns-id` is skipped (the notification may have been replaced by a reused
    /// id meanwhile); any other failure fails the whole batch.
    func record(_ changes: [DeliveryChange]) async throws
}

/// What the device link needs from the store: devices, their secrets, and one token per app.
///
/// Device ids are lowercase UUIDs made by the store; every method compares them case-insensitively.
public protocol DeviceRegistry: Sendable {
    /// Adds a device with a new random id and secret.
    ///
    /// The secret is returned only here: the store keeps its SHA-256. A name that is empty, longer than 255
    /// characters or holds control characters fails with ``StoreError/invalidRecord``.
    func addDevice(name: String) async throws -> DeviceCredentials

    /// The device with this id when `secret` is its secret; `nil` for an unknown id or a wrong secret.
    ///
    /// Compares hashes in constant time.
    func authenticateDevice(id: String, secret: String) async throws -> DeviceRecord?

    /// Every device, oldest first.
    func devices() async throws -> [DeviceRecord]

    /// One device by id, or `nil`.
    func device(id: String) async throws -> DeviceRecord?

    /// The app's active token on the device, issuing a new one when it has none.
    ///
    /// Stable across reconnects: the same device, bundle id and environment get the same token until it is
    /// unregistered; after that a new token is issued (a reinstalled app gets a new token on iOS too).
    /// Fails with ``StoreError/unknownDevice`` when the device does not exist. Concurrent calls for the same app
    /// get the same token (exactly one of them with `isNew`), and the token is known to the gateway's
    /// ``NotificationStore/lookup(_:)`` as soon as the call returns.
    func registerAppToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> AppTokenRegistration

    /// The app's active token on the device, or `nil`.
    func activeToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> TokenRecord?

    /// Every token the device was ever issued, active and unregistered, oldest first.
    func tokens(deviceID: String) async throws -> [TokenRecord]

    /// Marks a token unregistered at the given time (milliseconds since the epoch) and returns its record.
    ///
    /// Idempotent: a token that is already unregistered keeps its first time. An unknown token fails with
    /// ``StoreError/unknownDeviceToken``. Later pushes to it get `410 Unregistered` with this time.
    @discardableResult
    func unregister(_ token: DeviceToken, atMilliseconds: Int64) async throws -> TokenRecord

    /// Registers a Live Activity token the device reports; at most `limit` active ones per device.
    ///
    /// Idempotent for the same token, device, app and kind; a new push-to-start token of a type retires the old.
    /// Fails with ``StoreError/duplicateDeviceToken`` when the token is registered to something else,
    /// ``StoreError/tooManyTokens`` over the limit, ``StoreError/unknownDevice``.
    func registerActivityToken(_ request: ActivityTokenRequest, limit: Int) async throws -> AppTokenRegistration
}
