/// One broadcast a provider sent on a channel (`POST /4/broadcasts/apps/<bundle>`, docs/broadcast.md): what every
/// device whose Live Activities subscribe to the channel receives.
public struct ChannelMessage: Sendable, Hashable {
    /// The channel id (`apns-channel-id`).
    public var channelID: String
    /// The app the channel belongs to.
    public var bundleID: String
    /// The channel's environment.
    public var environment: APNSEnvironment
    /// The broadcast's `apns-request-id` (a UUID in lowercase): devices drop one they already have.
    public var requestID: String
    /// `apns-priority`: 5 or 10.
    public var priority: Int
    /// `apns-expiration` in seconds since the epoch; `0`: connected devices only, nothing kept.
    public var expiration: Int64
    /// When Herald accepted it, in milliseconds since the epoch.
    public var acceptedAtMilliseconds: Int64
    /// The Live Activity payload, byte for byte.
    public var payload: [UInt8]

    /// Creates a message.
    public init(
        channelID: String,
        bundleID: String,
        environment: APNSEnvironment,
        requestID: String,
        priority: Int,
        expiration: Int64,
        acceptedAtMilliseconds: Int64,
        payload: [UInt8]
    ) {
        self.channelID = channelID
        self.bundleID = bundleID
        self.environment = environment
        self.requestID = requestID
        self.priority = priority
        self.expiration = expiration
        self.acceptedAtMilliseconds = acceptedAtMilliseconds
        self.payload = payload
    }

    /// Until when a channel with storage policy 1 keeps it for devices that subscribe later, in milliseconds since
    /// the epoch: its `apns-expiration`, at most `maximumSeconds` after it was accepted; `nil` when it is not kept
    /// (`apns-expiration: 0`, "now or never", as for device pushes).
    public func keptUntilMilliseconds(maximumSeconds: Int64) -> Int64? {
        guard expiration > 0 else { return nil }
        let (latest, overflow) = acceptedAtMilliseconds.addingReportingOverflow(maximumSeconds.multipliedReportingOverflow(by: 1000).partialValue)
        let (requested, overflowed) = expiration.multipliedReportingOverflow(by: 1000)
        let until = min(overflow ? .max : latest, overflowed ? .max : requested)
        return until > acceptedAtMilliseconds ? until : nil
    }
}
