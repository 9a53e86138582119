import HeraldCore

/// One broadcast: `POST /4/broadcasts/apps/<bundle>` with its headers and a Live Activity payload, to every activity
/// subscribed to a channel.
///
/// Values are sent as given, so a test can send what APNs would refuse and read the reason the server answers; a
/// header whose value is `nil` is not sent. The defaults are the values Apple asks for.
public struct APNSBroadcastRequest: Sendable, Hashable {
    /// The app's bundle id; it becomes the last path component.
    public var bundleID: String
    /// `apns-channel-id`: the channel, as ``APNSProviderClient/createChannel(bundleID:storagePolicy:requestID:)`` answered it.
    public var channelID: String
    /// The Live Activity payload (`aps.event` `update` or `end`, `timestamp`, `content-state`, …), sent as the body.
    public var payload: [UInt8]
    /// `apns-push-type`: `liveactivity`, the only type a broadcast takes.
    public var pushType: PushType?
    /// `apns-priority`: 10 or 5; required.
    public var priority: APNSPriority?
    /// `apns-expiration`: 0 (required on a channel that stores no message), or seconds since the UNIX epoch until
    /// which a channel with ``APNSMessageStoragePolicy/mostRecentMessageStored`` keeps the message.
    public var expiration: Int64?
    /// `apns-request-id`: a UUID naming the request; the server makes one up when absent.
    public var requestID: String?

    /// Creates a broadcast request.
    public init(
        bundleID: String,
        channelID: String,
        payload: [UInt8],
        pushType: PushType? = .liveactivity,
        priority: APNSPriority? = .immediate,
        expiration: Int64? = 0,
        requestID: String? = nil
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
    }
}
