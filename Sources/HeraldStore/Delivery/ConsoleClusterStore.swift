import HeraldCore

/// A device's newest screen as the store shares it between the nodes of a cluster (docs/cluster.md, "The console").
public struct SharedScreen: Sendable, Hashable {
    /// The device's id.
    public var deviceID: String
    /// The screen as the device sent it: the text of a JSON object.
    public var json: [UInt8]
    /// When the node that holds the device's link received it, in milliseconds since the epoch.
    public var updatedAtMilliseconds: Int64
    /// The node that received it.
    public var nodeID: String

    /// A screen received by `nodeID`.
    public init(deviceID: String, json: [UInt8], updatedAtMilliseconds: Int64, nodeID: String) {
        self.deviceID = deviceID
        self.json = json
        self.updatedAtMilliseconds = updatedAtMilliseconds
        self.nodeID = nodeID
    }
}

/// What the web console of a cluster node needs from the store the nodes share: each device's newest screen, and a
/// channel every node's console listens on (live events, interactions forwarded to the node holding a device).
public protocol ConsoleClusterStore: Sendable {
    /// This node's id (`herald serve --node-id`).
    var nodeID: String { get }

    /// The live nodes each connected device's tokens are routed to, by device id (``ClusterStore``'s).
    func deviceNodes(deviceID: String?) async throws -> [String: [String]]

    /// The most bytes of one console message (``sendConsoleMessage(_:)``).
    var maximumConsoleMessageBytes: Int { get }

    /// Keeps these screens, each as its device's newest unless the store has a newer one (by time); a screen of a
    /// device the store does not know is skipped.
    func saveScreens(_ screens: [SharedScreen]) async throws

    /// The device's newest screen, if a node ever saved one.
    func sharedScreen(deviceID: String) async throws -> SharedScreen?

    /// When each device's newest saved screen arrived, by device id: of every device, or of the one `deviceID` names.
    func sharedScreenTimes(deviceID: String?) async throws -> [String: Int64]

    /// Sends a message to every node's console (this one's too); at most ``maximumConsoleMessageBytes`` of UTF-8.
    func sendConsoleMessage(_ message: String) async throws

    /// The console messages of every node (this one's too), in the order they were sent. The sequence ends when the
    /// store shuts down; a lost connection to the database is retried inside (what was sent meanwhile is lost).
    func consoleMessages() -> AsyncStream<String>
}
