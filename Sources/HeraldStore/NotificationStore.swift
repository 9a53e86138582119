import HeraldCore

/// The durable store behind the gateway, the delivery engine and the CLI: accepted notifications,
/// their delivery traces, the device-token registry and the provider signing keys.
///
/// Two backends implement it: ``SQLiteStore`` (the embedded default, one file) and `PostgresStore` (module
/// HeraldPostgres: one database several nodes may share; docs/postgresql.md). Tests/HeraldStoreTests/StoreContractTests
/// runs the same rules against both. Rules every implementation keeps:
/// - ``enqueue(_:completion:)`` calls its completion only once the notification is durable: the
///   gateway answers `200` only after that, because APNs's `200` means "accepted for delivery".
/// - ``lookup(_:)`` and ``signingKey(keyID:)`` are on the request hot path: they answer from memory and
///   see changes made by other processes within a bounded delay.
/// - Errors are ``StoreError``; nothing traps on bad input or a busy database, and every wait has a deadline.
public protocol NotificationStore: DeliveryStore, DeviceRegistry {
    // MARK: Accepted notifications

    /// Queues an accepted notification for the next group commit; `completion` runs once it is durable
    /// (`.success` with its store sequence, ``StoredNotification/sequence``) or could not be stored (`.failure`).
    ///
    /// The sequence is what the delivery engine names the notification by: a provider may reuse an `apns-id`.
    ///
    /// Usable from a SwiftNIO event loop: it never blocks and starts no task. The completion runs on the
    /// store's writer thread — or at once, on the caller's thread, when the notification is refused
    /// (``StoreError/overloaded``, ``StoreError/shutDown``) — and must only hand the result back (e.g.
    /// `eventLoop.execute`), never block.
    /// A notification whose `apns-id` is already stored replaces the older one (see ``SQLiteStore``).
    func enqueue(_ notification: AcceptedNotification, completion: @escaping @Sendable (Result<Int64, StoreError>) -> Void)

    /// One stored notification by `apns-id` (compared case-insensitively), or `nil`.
    func notification(_ id: NotificationID) async throws -> StoredNotification?

    /// Stored notifications, newest first, for one device token or for all when `token` is `nil`.
    ///
    /// `limit` is clamped to `0...10_000`.
    func listNotifications(token: DeviceToken?, limit: Int) async throws -> [StoredNotification]

    /// Stored notifications, newest first, addressed to any token the device was ever issued.
    ///
    /// `limit` is clamped to `0...10_000`.
    func listNotifications(deviceID: String, limit: Int) async throws -> [StoredNotification]

    /// The delivery trace of one notification, oldest event first; empty when the id is unknown.
    func trace(_ id: NotificationID) async throws -> [TraceEvent]

    /// Row counts for the CLI and the inspection API.
    func counts() async throws -> StoreCounts

    // MARK: Device tokens

    /// Registers a device token for an app; fails with ``StoreError/duplicateDeviceToken`` if it exists.
    ///
    /// Most callers use ``registerToken(bundleID:environment:deviceID:)``, which makes a random token.
    func registerToken(
        _ token: DeviceToken,
        bundleID: String,
        environment: APNSEnvironment,
        deviceID: String?
    ) async throws -> TokenRecord

    // `unregister(_:atMilliseconds:)` is declared by ``DeviceRegistry``: the device link unregisters apps too.

    // MARK: Broadcast channels (docs/broadcast.md)

    /// Creates a channel with a new id, or `nil` when the app has `limit` channels in that environment already.
    func createChannel(
        bundleID: String,
        environment: APNSEnvironment,
        storagePolicy: Int,
        pushType: String,
        limit: Int
    ) async throws
        -> ChannelRecord?

    /// The channel with this id, if it belongs to the app in that environment.
    func channel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> ChannelRecord?

    /// Deletes the app's channel; false when there is none with that id.
    func deleteChannel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> Bool

    /// The app's channels in that environment, oldest first.
    func channels(bundleID: String, environment: APNSEnvironment) async throws -> [ChannelRecord]

    /// Keeps a channel's most recent broadcast until a time, or forgets it (`nil`); false when the channel is gone.
    func keepChannelMessage(_ message: ChannelMessage, untilMilliseconds: Int64?) async throws -> Bool

    /// Every channel of every app, oldest first, at most `limit`.
    func allChannels(limit: Int) async throws -> [ChannelRecord]

    /// The registry entry of a token, or `nil` when Herald never issued it. Hot path: served from memory.
    func lookup(_ token: DeviceToken) throws -> TokenRecord?

    /// The team an app (bundle id) belongs to, or `nil` when none was recorded (`herald apps add`). Hot path.
    func appTeam(bundleID: String) throws -> String?

    /// Records that an app belongs to a team (adding it again for the same team is no change); fails with
    /// ``StoreError/appOfAnotherTeam`` when it belongs to another.
    @discardableResult
    func addApp(bundleID: String, teamID: String) async throws -> AppRecord

    /// Every app with its team, by bundle id.
    func apps() async throws -> [AppRecord]

    /// Removes an app's team; fails with ``StoreError/unknownApp`` when there is none.
    func removeApp(bundleID: String) async throws

    // MARK: Signing keys

    /// Adds a provider signing key; fails with ``StoreError/duplicateSigningKey`` if its key id exists.
    func addSigningKey(_ key: SigningKeyRecord) async throws

    /// Every signing key, oldest first.
    func signingKeys() async throws -> [SigningKeyRecord]

    /// Removes a signing key; fails with ``StoreError/unknownSigningKey`` when there is none.
    func removeSigningKey(keyID: String) async throws

    /// The signing key with this key id (the JWT `kid`), or `nil`. Hot path: served from memory.
    func signingKey(keyID: String) throws -> SigningKeyRecord?

    // MARK: Retention and other processes' changes (the server's services)

    /// Deletes notifications in a final state accepted before `cutoff` (milliseconds since the epoch), with their traces;
    /// looks at up to `limit` in sequence order after `after`, never deletes one still `stored`
    /// (``SQLiteStore/prune(acceptedBefore:after:limit:)`` has the rules).
    func prune(acceptedBefore cutoff: Int64, after: Int64, limit: Int) async throws -> PruneBatch

    /// The tokens unregistered since a registry revision by any process or node, and the revision to ask from next;
    /// with `nil`, every unregistered token that still has a notification waiting
    /// (``SQLiteStore/unregisteredTokens(after:)``).
    func unregisteredTokens(after revision: Int64?) async throws -> UnregisteredTokens

    // MARK: Lifecycle

    /// Stops taking notifications, commits everything already queued, then closes the store.
    ///
    /// Later calls fail with ``StoreError/shutDown``. Calling it again returns at once.
    func shutdown() async
}

extension NotificationStore {
    /// Stores an accepted notification and returns its store sequence once it is durable.
    ///
    /// The `async` form of ``enqueue(_:completion:)``, for callers that are not on an event loop.
    @discardableResult
    public func accept(_ notification: AcceptedNotification) async throws -> Int64 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int64, any Error>) in
            enqueue(notification) { result in
                continuation.resume(with: result.mapError { $0 as any Error })
            }
        }
    }

    /// Issues a new random 32-byte device token for an app and registers it.
    public func registerToken(bundleID: String, environment: APNSEnvironment, deviceID: String?) async throws -> DeviceToken {
        // Why 32 bytes: the size Apple issues in practice (spec §A.9); callers must not rely on it.
        try await registerToken(DeviceToken.random(), bundleID: bundleID, environment: environment, deviceID: deviceID).token
    }
}
