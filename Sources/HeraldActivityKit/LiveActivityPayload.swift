import Foundation
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
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], let aps = object["aps"] as? [String: Any] else {
            return .failure(Drop(reason: "malformed-payload", detail: "the payload is not a JSON object with an aps object"))
        }
        guard let eventName = aps["event"] as? String else { return .failure(Drop(reason: "missing-event", detail: "aps has no event")) }
        guard let event = Event(rawValue: eventName) else {
            return .failure(Drop(reason: "unknown-event", detail: "event \(eventName) is not start, update or end"))
        }
        // Why: Apple requires `timestamp` (seconds) on every Live Activity push; it orders the updates.
        guard let timestamp = seconds(aps["timestamp"]) else {
            return .failure(Drop(reason: "missing-timestamp", detail: "aps has no timestamp (seconds since 1970)"))
        }
        var push = LiveActivityPayload(event: event, timestamp: Date(timeIntervalSince1970: timestamp))
        if let state = aps["content-state"] {
            guard state is [String: Any], let data = try? JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]) else {
                return .failure(Drop(reason: "undecodable-content-state", detail: "content-state is not an object"))
            }
            push.contentState = data
        }
        if let attributes = aps["attributes"] {
            guard attributes is [String: Any], let data = try? JSONSerialization.data(withJSONObject: attributes, options: [.sortedKeys]) else {
                return .failure(Drop(reason: "undecodable-attributes", detail: "attributes is not an object"))
            }
            push.attributes = data
        }
        push.staleDate = seconds(aps["stale-date"]).map(Date.init(timeIntervalSince1970:))
        push.dismissalDate = seconds(aps["dismissal-date"]).map(Date.init(timeIntervalSince1970:))
        push.relevanceScore = (aps["relevance-score"] as? NSNumber)?.doubleValue
        push.attributesType = aps["attributes-type"] as? String
        push.inputPushToken = (aps["input-push-token"] as? NSNumber)?.intValue == 1
        push.inputPushChannel = aps["input-push-channel"] as? String
        if let alert = aps["alert"] as? [String: Any] {
            push.alert = AlertConfiguration(
                title: text(alert["title"]),
                body: text(alert["body"]),
                sound: aps["sound"] as? String
            )
        } else if let alert = aps["alert"] as? String {
            push.alert = AlertConfiguration(title: "", body: alert, sound: aps["sound"] as? String)
        }
        return .success(push)
    }

    /// A number of seconds, integer or not; `nil` for anything else (a string, a boolean).
    private static func seconds(_ value: Any?) -> Double? {
        guard let value, case .int(let whole)? = JSONValue(any: value) else {
            if let value, case .double(let fraction)? = JSONValue(any: value) { return fraction }
            return nil
        }
        return Double(whole)
    }

    /// An alert's text: a string, or a localization key (`title-loc-key`-style objects are shown by key).
    private static func text(_ value: Any?) -> String {
        if let string = value as? String { return string }
        if let localized = value as? [String: Any], let key = localized["loc-key"] as? String { return key }
        return ""
    }
}
