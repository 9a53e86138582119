import HeraldCore

/// What a delivery engine in cluster mode needs from the store that several nodes share (docs/cluster.md).
///
/// A node's engine holds only the tokens of the devices connected to it; what waits for a device that is not connected
/// waits in the store as `stored`. The store keeps a route per connected token (which node holds it), hands each node
/// the sequences of the notifications other nodes accepted for its tokens, and lets a node read what waits for its
/// tokens.
public protocol ClusterStore: Sendable {
    /// This node's id (`herald serve --node-id`).
    var nodeID: String { get }

    /// Records that this node holds these tokens (a device connected or registered here), then returns the
    /// notifications still `stored` for them, oldest first (by sequence).
    func claimRoutes(_ tokens: [DeviceToken]) async throws -> [StoredNotification]

    /// Removes this node's routes of these tokens (their device left this node); another node's route is kept.
    func releaseRoutes(_ tokens: [DeviceToken]) async throws

    /// The notifications still `stored` for the tokens routed to this node, oldest first: the sweep that finds what a
    /// hand-off missed (a notification committed while its device's route was being written).
    func storedForRoutedTokens() async throws -> [StoredNotification]

    /// The notifications with these sequences that are still `stored`, oldest first (what a hand-off named).
    func storedNotifications(sequences: [Int64]) async throws -> [StoredNotification]

    /// Says that this node is alive (its lease is renewed); the first call also drops the routes a previous run of this
    /// node left behind.
    func heartbeat() async throws

    /// Marks `expired` (reason `expired`) the `stored` notifications whose time is up and whose token no live node holds
    /// — their `apns-expiration`, or `defaultStorageMilliseconds` after acceptance without one — at most `limit` of
    /// them, oldest first; one node at a time does it (the others skip while it runs). Returns how many.
    func expireUnrouted(nowMilliseconds: Int64, defaultStorageMilliseconds: Int64, limit: Int) async throws -> Int

    /// The live nodes each connected device's tokens are routed to, by device id (for the inspection API's `nodes`):
    /// of every device, or of the one `deviceID` names.
    func deviceNodes(deviceID: String?) async throws -> [String: [String]]

    /// Says that this node stops: its routes are removed and its lease ends now, so that other nodes keep what they
    /// accept for its devices in the store until the devices connect elsewhere.
    func leave() async throws

    /// The hand-offs to this node: each element is the sequences of notifications other nodes committed for tokens
    /// routed here, in commit order. The sequence ends when the store shuts down; a lost connection to the database is
    /// retried inside, and the sweep finds what was handed off meanwhile.
    func handOffs() -> AsyncStream<[Int64]>

    /// Marks `discarded` (reason `token-unregistered`) the `stored` notifications of an unregistered token that no live
    /// node holds (their device will never take them); returns how many.
    func discardUnrouted(token: DeviceToken, atMilliseconds: Int64) async throws -> Int
}
