import HeraldCore
import HeraldProviderClient

/// How `herald channels` writes an answer: the ids a script wants, or one JSON object with `--json`.
enum ChannelsOutput {
    /// `create`: the new channel's id alone, so that `CHANNEL=$(herald channels create …)` works; or
    /// `{"apnsChannelID":…,"apnsRequestID":…,"status":201}`.
    static func created(_ response: APNSChannelResponse, json: Bool) -> String {
        guard json else { return response.channelID ?? "-" }
        return OutputFormat.jsonLine(common(response).merging(["apnsChannelID": .nullable(response.channelID)]) { $1 })
    }

    /// `list`: one id a line, oldest first (nothing for none); or `{"apnsRequestID":…,"channels":[…],"status":200}`.
    static func listed(_ response: APNSChannelResponse, json: Bool) -> String {
        let channels = response.channelIDs ?? []
        guard json else { return channels.joined(separator: "\n") }
        return OutputFormat.jsonLine(common(response).merging(["channels": .array(channels.map(JSONValue.string))]) { $1 })
    }

    /// `show`: `<id>  message-storage-policy 1  push-type LiveActivity`; or
    /// `{"apnsChannelID":…,"apnsRequestID":…,"messageStoragePolicy":1,"pushType":"LiveActivity","status":200}`.
    static func shown(_ response: APNSChannelResponse, json: Bool) -> String {
        let configuration = response.configuration
        guard json else {
            let policy = configuration.map { String($0.storagePolicy.rawValue) } ?? "-"
            return "\(response.channelID ?? "-")  message-storage-policy \(policy)  push-type \(configuration?.pushType ?? "-")"
        }
        let fields: [String: JSONValue] = [
            "apnsChannelID": .nullable(response.channelID),
            "messageStoragePolicy": .nullable(configuration?.storagePolicy.rawValue),
            "pushType": .nullable(configuration?.pushType),
        ]
        return OutputFormat.jsonLine(common(response).merging(fields) { $1 })
    }

    /// `delete`: `deleted <id>`; or `{"apnsChannelID":…,"apnsRequestID":…,"status":204}`.
    static func deleted(_ response: APNSChannelResponse, channelID: String, json: Bool) -> String {
        guard json else { return "deleted \(channelID)" }
        return OutputFormat.jsonLine(common(response).merging(["apnsChannelID": .string(channelID)]) { $1 })
    }

    /// A refusal, for standard error: `the server answered 400 ChannelNotRegistered (apns-request-id <id>)`.
    static func refusal(_ response: APNSChannelResponse) -> String {
        let status = response.reason.map { "\(response.status) \($0.rawValue)" } ?? "\(response.status)"
        return "the server answered \(status) (apns-request-id \(response.requestID ?? "-"))"
    }

    /// A refusal as JSON: `{"apnsRequestID":…,"reason":"ChannelNotRegistered","status":400}`.
    static func refusalJSON(_ response: APNSChannelResponse) -> String {
        OutputFormat.jsonLine(common(response).merging(["reason": .nullable(response.reason?.rawValue)]) { $1 })
    }

    /// The members every JSON answer has.
    private static func common(_ response: APNSChannelResponse) -> [String: JSONValue] {
        ["status": .int(response.status), "apnsRequestID": .nullable(response.requestID)]
    }
}
