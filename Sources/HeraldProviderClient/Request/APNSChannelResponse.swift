import HeraldCore

/// The server's answer to a channel-management or broadcast request.
///
/// A refusal is an answer, not an error: the calls throw only when no answer arrived.
public struct APNSChannelResponse: Sendable, Hashable {
    /// The HTTP status: 201 for a created channel, 200 for a read, a list or a broadcast, 204 for a deletion.
    public var status: Int
    /// The `reason` of an error answer's JSON body (`ChannelNotRegistered`, `BadChannelId`, …); `nil` on success.
    public var reason: APNSReason?
    /// `apns-request-id`: the request's own when it sent one, else the one the server made up. Every answer has one.
    public var requestID: String?
    /// `apns-unique-id`: the id the sandbox environment gives each broadcast.
    public var uniqueID: String?
    /// `apns-channel-id`: the new channel's id (create), or the channel read.
    public var channelID: String?
    /// The answer's body: the channel's configuration (read), the app's channels (list), an error, or nothing.
    public var body: [UInt8]
    /// From the call to the end of the answer, including any wait for a free stream.
    public var latency: Duration

    /// Creates a response (for tests and doubles; the client makes them from the wire).
    public init(
        status: Int,
        reason: APNSReason? = nil,
        requestID: String? = nil,
        uniqueID: String? = nil,
        channelID: String? = nil,
        body: [UInt8] = [],
        latency: Duration = .zero
    ) {
        self.status = status
        self.reason = reason
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.channelID = channelID
        self.body = body
        self.latency = latency
    }

    /// Whether the server did what was asked (a status from 200 to 299).
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The channel's configuration, from the body of a read: `{"message-storage-policy": 1, "push-type": "LiveActivity"}`;
    /// `nil` when the body is not one.
    public var configuration: APNSChannelConfiguration? {
        guard isSuccess, let object = (try? JSONParser.parse(body))?.objectValue,
            let policy = object["message-storage-policy"]?.integerValue, let pushType = object["push-type"]?.stringValue
        else { return nil }
        return APNSChannelConfiguration(storagePolicy: APNSMessageStoragePolicy(rawValue: policy), pushType: pushType)
    }

    /// The app's channel ids, oldest first, from the body of a list: `{"channels": ["…", …]}`; `nil` when the body is
    /// not one.
    public var channelIDs: [String]? {
        guard isSuccess, let channels = (try? JSONParser.parse(body))?.objectValue?["channels"]?.arrayValue else { return nil }
        let ids = channels.compactMap(\.stringValue)
        return ids.count == channels.count ? ids : nil
    }
}

extension APNSChannelResponse {
    /// The answer to a channel or broadcast request, as the connection collected it.
    init(_ answer: APNSAnswer) {
        self.init(
            status: answer.status,
            reason: answer.reason,
            requestID: answer.requestID,
            uniqueID: answer.uniqueID,
            channelID: answer.channelID,
            body: answer.body,
            latency: answer.latency
        )
    }
}

/// A channel's configuration, as the server stores it.
public struct APNSChannelConfiguration: Sendable, Hashable {
    /// Whether the channel keeps its most recent broadcast.
    public var storagePolicy: APNSMessageStoragePolicy
    /// The push type of the channel's broadcasts: `LiveActivity`.
    public var pushType: String

    /// Creates a configuration.
    public init(storagePolicy: APNSMessageStoragePolicy, pushType: String) {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }
}
