/// A request of the channel-management or broadcast API, ready to encode: method, path, `apns-*` fields in order,
/// body, and how much answer it expects.
struct APNSChannelAPIRequest: Sendable {
    var method: String
    /// The app; it is a path segment.
    var bundleID: String
    var path: String
    var fields: [(String, String)]
    var body: [UInt8] = []
    var responseBodyLimit = maximumResponseBodySize

    /// `{"channels": [...]}` with an app's most channels (10,000 ids of 24 characters, quoted, with commas) and room
    /// to spare.
    static let channelListBodyLimit = 512 * 1024

    /// `POST /1/apps/<bundle>/channels`.
    static func createChannel(bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: String?) -> Self {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        return Self(
            method: "POST",
            bundleID: bundleID,
            path: "/1/apps/\(bundleID)/channels",
            fields: optionalFields([("apns-request-id", requestID)]),
            body: Array(body.utf8)
        )
    }

    /// `GET` or `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`.
    static func channel(_ method: String, bundleID: String, channelID: String, requestID: String?) -> Self {
        Self(
            method: method,
            bundleID: bundleID,
            path: "/1/apps/\(bundleID)/channels",
            fields: optionalFields([("apns-channel-id", channelID), ("apns-request-id", requestID)])
        )
    }

    /// `GET /1/apps/<bundle>/all-channels`.
    static func allChannels(bundleID: String, requestID: String?) -> Self {
        Self(
            method: "GET",
            bundleID: bundleID,
            path: "/1/apps/\(bundleID)/all-channels",
            fields: optionalFields([("apns-request-id", requestID)]),
            responseBodyLimit: channelListBodyLimit
        )
    }

    /// `POST /4/broadcasts/apps/<bundle>` with the broadcast's headers and payload.
    static func broadcast(_ request: APNSBroadcastRequest) -> Self {
        Self(
            method: "POST",
            bundleID: request.bundleID,
            path: "/4/broadcasts/apps/\(request.bundleID)",
            fields: optionalFields([
                ("apns-channel-id", request.channelID),
                ("apns-push-type", request.pushType?.rawValue),
                ("apns-priority", request.priority.map { String($0.rawValue) }),
                ("apns-expiration", request.expiration.map { String($0) }),
                ("apns-request-id", request.requestID),
            ]),
            body: request.payload
        )
    }

    /// The fields that have a value, in order.
    private static func optionalFields(_ fields: [(String, String?)]) -> [(String, String)] {
        fields.compactMap { name, value in value.map { (name, $0) } }
    }
}
