import HeraldCore

/// The body of `subscribe-channel` and `unsubscribe-channel`: an app's Live Activities follow a broadcast channel
/// (docs/device-link.md, "subscribe-channel").
public struct DeviceLinkChannelRequest: Sendable, Hashable {
    /// Chosen by the device and echoed in the reply.
    public var id: String?
    /// The app, e.g. `com.example.app`.
    public var bundleID: String
    /// The app's environment (`sandbox` when the frame leaves it out).
    public var environment: APNSEnvironment
    /// The channel id, as the provider created it.
    public var channelID: String

    /// Creates a request.
    public init(id: String?, bundleID: String, environment: APNSEnvironment, channelID: String) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.channelID = channelID
    }
}

/// The body of `channel-subscribed` and `channel-unsubscribed`: the server's answer about one subscription.
public struct DeviceLinkChannelReply: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The channel id.
    public var channelID: String
    /// `channel-subscribed`: whether this request subscribed it (`false`: it already was).
    public var isNew: Bool

    /// Creates a reply.
    public init(id: String?, channelID: String, isNew: Bool = false) {
        self.id = id
        self.channelID = channelID
        self.isNew = isNew
    }
}

/// The body of `broadcast`: one message a provider broadcast on a channel the device subscribes to. There is no
/// `ack`: like APNs' broadcasts, it is sent to the devices connected now; a device that missed it gets the channel's
/// kept message (storage policy 1) when it subscribes again.
public struct DeviceLinkBroadcast: Sendable, Hashable {
    /// The channel id.
    public var channelID: String
    /// The app.
    public var bundleID: String
    /// The channel's environment.
    public var environment: APNSEnvironment
    /// The broadcast's `apns-request-id`: a device that already has it drops it.
    public var requestID: String
    /// `apns-priority`: 5 or 10.
    public var priority: Int
    /// `apns-expiration` in seconds since the epoch (`0`: now or never).
    public var expiration: Int64
    /// When the server accepted it, in milliseconds since the epoch.
    public var acceptedAtMilliseconds: Int64
    /// The provider's Live Activity payload, byte for byte.
    public var payload: [UInt8]

    /// Creates a broadcast frame body.
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

    /// The frame body of an accepted broadcast.
    public init(_ message: ChannelMessage) {
        self.init(
            channelID: message.channelID,
            bundleID: message.bundleID,
            environment: message.environment,
            requestID: message.requestID,
            priority: message.priority,
            expiration: message.expiration,
            acceptedAtMilliseconds: message.acceptedAtMilliseconds,
            payload: message.payload
        )
    }
}

extension DeviceLinkClientMessage {
    static func channelRequest(_ reader: JSONFrameReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkChannelRequest {
        let app = try appRequest(reader, context)
        return DeviceLinkChannelRequest(
            id: app.id,
            bundleID: app.bundleID,
            environment: app.environment,
            channelID: try channelID(reader, context)
        )
    }

    static func channelID(_ reader: JSONFrameReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> String {
        let channelID = try reader.string("channel", context: context)
        guard ChannelID.isWellFormed(channelID) else {
            throw context.with(code: .invalidChannel, message: "\"channel\" must be a channel id: base64 of 1 to 48 bytes")
        }
        return channelID
    }

    static func write(_ request: DeviceLinkChannelRequest, type: String, into writer: inout JSONTextWriter) {
        writer.member("type", type)
        if let id = request.id { writer.member("id", id) }
        writer.member("bundleID", request.bundleID)
        writer.member("environment", request.environment.rawValue)
        writer.member("channel", request.channelID)
    }
}
