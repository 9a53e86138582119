import HeraldCore

/// What changed, in one live update of the web console (`GET /api/v1/events`; HeraldWeb's `ConsoleEvent.Change`).
///
/// Here rather than in HeraldWeb because the console relay's messages (``ConsoleRelayMessage``) carry it between a
/// cluster's nodes, and their reader is fuzzed without the web port (docs/fuzzing.md).
public enum ConsoleChange: Sendable, Hashable {
    /// A device sent a new screen.
    case screen(deviceID: String)
    /// A trace event was recorded for a notification (`accepted`, `sent`, `displayed`, …).
    case trace(apnsID: NotificationID, event: String)
    /// A device connected or disconnected.
    case device(deviceID: String, online: Bool)
    /// Another node of a cluster had more events than it relays (docs/cluster.md, "The console"): `lost` of them
    /// did not reach this node, so a reader refreshes everything.
    case resync(lost: Int)
}
