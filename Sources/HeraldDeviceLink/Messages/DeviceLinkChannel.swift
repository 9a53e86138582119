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

/// The body of `broadcast`: one message a provider broadcast on a channel the device subscribes to, as the server
/// accepted it (``ChannelMessage``). There is no `ack`: like APNs' broadcasts, it is sent to the devices connected now;
/// a device that missed it gets the channel's kept message (storage policy 1) when it subscribes again.
public typealias DeviceLinkBroadcast = ChannelMessage

extension DeviceLinkClientMessage {
    static func channelRequest(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkChannelRequest {
        let app = try appRequest(reader, context)
        return DeviceLinkChannelRequest(
            id: app.id,
            bundleID: app.bundleID,
            environment: app.environment,
            channelID: try channelID(reader, context)
        )
    }

    static func channelID(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> String {
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
