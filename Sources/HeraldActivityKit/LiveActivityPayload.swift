import Foundation
import HeraldCore
import HeraldUserNotifications

/// The `aps` of a `liveactivity` push, read leniently where Apple's devices are (numbers as integers or decimals,
/// unknown keys ignored) and strictly where a value cannot be used.
struct LiveActivityPayload: Sendable {
    enum Event: String, Sendable {
        case start, update, end
    }

    /// Why a payload cannot apply.
    struct Drop: Error {
        var reason: String
        var detail: String
        var event: ActivityEvent { .dropped(reason: reason, detail: detail) }
    }

    var event: Event
    var timestamp: Date
    var contentState: Data?
    var staleDate: Date?
    var dismissalDate: Date?
    var relevanceScore: Double?
    var alert: AlertConfiguration?
    var attributesType: String?
    var attributes: Data?
    var inputPushToken = false
    var inputPushChannel: String?

    static func parse(_ payload: Data) -> Result<LiveActivityPayload, Drop> {
        guard let aps = (try? JSONParser.parse(payload))?.objectValue?["aps"]?.objectValue else {
            return .failure(Drop(reason: "malformed-payload", detail: "the payload is not a JSON object with an aps object"))
        }
        guard let eventName = aps["event"]?.stringValue else { return .failure(Drop(reason: "missing-event", detail: "aps has no event")) }
        guard let event = Event(rawValue: eventName) else {
            return .failure(Drop(reason: "unknown-event", detail: "event \(eventName) is not start, update or end"))
        }
        // Why: Apple requires `timestamp` (seconds) on every Live Activity push; it orders the updates.
        guard let timestamp = seconds(aps["timestamp"]) else {
            return .failure(Drop(reason: "missing-timestamp", detail: "aps has no timestamp (seconds since 1970)"))
        }
        var push = LiveActivityPayload(event: event, timestamp: Date(timeIntervalSince1970: timestamp))
        if let state = aps["content-state"] {
            guard state.objectValue != nil else {
                return .failure(Drop(reason: "undecodable-content-state", detail: "content-state is not an object"))
            }
            push.contentState = Data(state.jsonBytes(sortingKeys: true))
        }
        if let attributes = aps["attributes"] {
            guard attributes.objectValue != nil else {
                return .failure(Drop(reason: "undecodable-attributes", detail: "attributes is not an object"))
            }
            push.attributes = Data(attributes.jsonBytes(sortingKeys: true))
        }
        push.staleDate = seconds(aps["stale-date"]).map(Date.init(timeIntervalSince1970:))
        push.dismissalDate = seconds(aps["dismissal-date"]).map(Date.init(timeIntervalSince1970:))
        push.relevanceScore = number(aps["relevance-score"])
        push.attributesType = aps["attributes-type"]?.stringValue
        push.inputPushToken = number(aps["input-push-token"]).map { $0.rounded(.towardZero) == 1 } ?? false
        push.inputPushChannel = aps["input-push-channel"]?.stringValue
        if let alert = aps["alert"]?.objectValue {
            push.alert = AlertConfiguration(
                title: text(alert["title"]),
                body: text(alert["body"]),
                sound: aps["sound"]?.stringValue
            )
        } else if let alert = aps["alert"]?.stringValue {
            push.alert = AlertConfiguration(title: "", body: alert, sound: aps["sound"]?.stringValue)
        }
        return .success(push)
    }

    /// A number of seconds, integer or not; `nil` for anything else (a string, a boolean).
    private static func seconds(_ value: JSONValue?) -> Double? {
        value?.doubleValue
    }

    /// A number, a boolean counting as 0 or 1 (as a device reads a flag); `nil` for anything else.
    private static func number(_ value: JSONValue?) -> Double? {
        if case .bool(let flag)? = value { return flag ? 1 : 0 }
        return value?.doubleValue
    }

    /// An alert's text: a string, or a localization key (`title-loc-key`-style objects are shown by key).
    private static func text(_ value: JSONValue?) -> String {
        if let string = value?.stringValue { return string }
        return value?.objectValue?["loc-key"]?.stringValue ?? ""
    }
}
