import Foundation
import HeraldProviderClient

/// How `herald channels` writes an answer: the ids a script wants, or one JSON object with `--json`.
enum ChannelsOutput {
    /// `create`: the new channel's id alone, so that `CHANNEL=$(herald channels create …)` works; or
    /// `{"apnsChannelID":…,"apnsRequestID":…,"status":201}`.
    static func created(_ response: APNSChannelResponse, json: Bool) throws -> String {
        guard json else { return response.channelID ?? "-" }
        return try OutputFormat.jsonLine(common(response).merging(["apnsChannelID": OutputFormat.nullable(response.channelID)]) { $1 })
    }

    /// `list`: one id a line, oldest first (nothing for none); or `{"apnsRequestID":…,"channels":[…],"status":200}`.
    static func listed(_ response: APNSChannelResponse, json: Bool) throws -> String {
        let channels = response.channelIDs ?? []
        guard json else { return channels.joined(separator: "\n") }
        return try OutputFormat.jsonLine(common(response).merging(["channels": channels]) { $1 })
    }

    /// `show`: `<id>  message-storage-policy 1  push-type LiveActivity`; or
    /// `{"apnsChannelID":…,"apnsRequestID":…,"messageStoragePolicy":1,"pushType":"LiveActivity","status":200}`.
    static func shown(_ response: APNSChannelResponse, json: Bool) throws -> String {
        let configuration = response.configuration
        guard json else {
            let policy = configuration.map { String($0.storagePolicy.rawValue) } ?? "-"
            return "\(response.channelID ?? "-")  message-storage-policy \(policy)  push-type \(configuration?.pushType ?? "-")"
        }
        let fields: [String: Any] = [
            "apnsChannelID": OutputFormat.nullable(response.channelID),
            "messageStoragePolicy": OutputFormat.nullable(configuration?.storagePolicy.rawValue),
            "pushType": OutputFormat.nullable(configuration?.pushType),
        ]
        return try OutputFormat.jsonLine(common(response).merging(fields) { $1 })
    }

    /// `delete`: `deleted <id>`; or `{"apnsChannelID":…,"apnsRequestID":…,"status":204}`.
    static func deleted(_ response: APNSChannelResponse, channelID: String, json: Bool) throws -> String {
        guard json else { return "deleted \(channelID)" }
        return try OutputFormat.jsonLine(common(response).merging(["apnsChannelID": channelID]) { $1 })
    }

    /// A refusal, for standard error: `the server answered 400 ChannelNotRegistered (apns-request-id <id>)`.
    static func refusal(_ response: APNSChannelResponse) -> String {
        let status = response.reason.map { "\(response.status) \($0.rawValue)" } ?? "\(response.status)"
        return "the server answered \(status) (apns-request-id \(response.requestID ?? "-"))"
    }

    /// A refusal as JSON: `{"apnsRequestID":…,"reason":"ChannelNotRegistered","status":400}`.
    static func refusalJSON(_ response: APNSChannelResponse) throws -> String {
        try OutputFormat.jsonLine(common(response).merging(["reason": OutputFormat.nullable(response.reason?.rawValue)]) { $1 })
    }

    /// The members every JSON answer has.
    private static func common(_ response: APNSChannelResponse) -> [String: Any] {
        ["status": response.status, "apnsRequestID": OutputFormat.nullable(response.requestID)]
    }
}
