import HeraldCore

/// What the gateway answers to one provider request: status, `apns-id`, and the error body when not 200.
struct ProviderResponse: Sendable {
    /// The HTTP status.
    var status: Int
    /// The `apns-id` to echo (or the generated one).
    var apnsID: String
    /// `apns-unique-id`, sent only in the sandbox environment (spec §A.4).
    var uniqueID: String?
    /// The reason, for errors.
    var reason: APNSReason?
    /// Milliseconds since the epoch at which the token stopped being valid, for 410 only.
    var timestamp: Int64?
    /// Whether `apns-id` is sent: not on channel-management answers, which carry `apns-request-id` instead.
    var sendsAPNSID = true
    /// Header fields besides `apns-id` and `apns-unique-id` (`apns-channel-id`, `apns-request-id`).
    var extraHeaders: [(name: StaticString, value: String)] = []
    /// The JSON body of a successful answer (a channel's configuration, the list of channels).
    var successBody: [UInt8]?

    static func success(apnsID: String, uniqueID: String?) -> ProviderResponse {
        ProviderResponse(status: 200, apnsID: apnsID, uniqueID: uniqueID)
    }

    static func failure(_ reason: APNSReason, apnsID: String, timestamp: Int64? = nil) -> ProviderResponse {
        ProviderResponse(status: reason.status, apnsID: apnsID, reason: reason, timestamp: reason.status == 410 ? timestamp : nil)
    }

    /// The JSON error body: `{"reason":"…"}`, with `timestamp` on 410 (spec §A.4).
    var body: [UInt8]? {
        guard let reason else { return successBody }
        var text = "{\"reason\":\"\(reason.rawValue)\""
        if let timestamp { text += ",\"timestamp\":\(timestamp)" }
        text += "}"
        return Array(text.utf8)
    }

    /// The status as text, cached for the common values.
    var statusText: String {
        switch status {
        case 200: "200"
        case 201: "201"
        case 204: "204"
        case 400: "400"
        case 403: "403"
        default: String(status)
        }
    }
}
