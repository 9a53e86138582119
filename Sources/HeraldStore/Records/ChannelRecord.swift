import HeraldCore

/// A broadcast channel of an app in one environment (docs/broadcast.md): Live Activities subscribed to it receive
/// what a provider broadcasts on it.
public struct ChannelRecord: Hashable, Sendable {
    /// The channel id APNs gives providers: 16 random bytes in base64, e.g. `dHN0LXNyY2gtY2hubA==`.
    public var id: String
    /// The app's bundle id.
    public var bundleID: String
    /// The environment it belongs to; a channel exists in one only.
    public var environment: APNSEnvironment
    /// `message-storage-policy`: 0, messages go to connected devices only; 1, the most recent is kept for devices that
    /// connect later.
    public var storagePolicy: Int
    /// `push-type`, as created: `LiveActivity`.
    public var pushType: String
    /// When it was created, in milliseconds since the epoch.
    public var createdAtMilliseconds: Int64
    /// Storage policy 1: the most recent broadcast, kept for devices that subscribe later, and until when (in
    /// milliseconds since the epoch); `nil` when nothing is kept.
    public var keptMessage: KeptChannelMessage?

    /// Creates a record.
    public init(id: String, bundleID: String, environment: APNSEnvironment, storagePolicy: Int, pushType: String, createdAtMilliseconds: Int64) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.pushType = pushType
        self.createdAtMilliseconds = createdAtMilliseconds
        self.keptMessage = nil
    }

    /// The kept message if it is still kept at `nowMilliseconds`.
    public func keptMessage(atMilliseconds nowMilliseconds: Int64) -> ChannelMessage? {
        guard let kept = keptMessage, kept.untilMilliseconds > nowMilliseconds else { return nil }
        return kept.message
    }
}

/// A channel's kept broadcast (storage policy 1) and until when it is kept.
public struct KeptChannelMessage: Hashable, Sendable {
    /// The broadcast.
    public var message: ChannelMessage
    /// Until when, in milliseconds since the epoch.
    public var untilMilliseconds: Int64

    /// Creates one.
    public init(message: ChannelMessage, untilMilliseconds: Int64) {
        self.message = message
        self.untilMilliseconds = untilMilliseconds
    }
}
