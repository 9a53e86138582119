import Foundation
import HeraldDeviceLink
import HeraldSimulator
import HeraldUserNotifications

/// What `herald device` prints: one line per event on standard output (text or JSON lines), status on
/// standard error.
struct DeviceOutput: Sendable {
    var json: Bool

    func connected(_ welcome: DeviceLinkWelcome) {
        line(
            text: "connected as \(welcome.deviceID) (\(welcome.name))",
            json: ["event": "connected", "device": welcome.deviceID, "name": welcome.name]
        )
    }

    func enrolled(_ welcome: DeviceLinkWelcome, secret: String) {
        line(
            text: "enrolled as \(welcome.deviceID) (\(welcome.name)) secret \(secret)",
            json: ["event": "enrolled", "device": welcome.deviceID, "name": welcome.name, "secret": secret]
        )
    }

    func registered(_ registration: DeviceLinkRegistration) {
        let bundle = registration.bundleID
        let environment = registration.environment.rawValue
        line(
            text: "token \(bundle) \(environment) \(registration.token.hex)\(registration.isNew ? " (new)" : "")",
            json: ["event": "registered", "bundleID": bundle, "environment": environment, "token": registration.token.hex, "new": registration.isNew]
        )
    }

    /// A Live Activity token the server registered (a type's push-to-start token, a new activity's token) or retired,
    /// as the app token's line with the kind and activity type after the token.
    func activityToken(_ token: SimulatedActivityToken, registered: Bool) {
        let environment = token.environment.rawValue
        let kind = token.kind.rawValue
        line(
            text: "token \(token.bundleID) \(environment) \(token.token.hex) \(kind) \(token.activityType)\(registered ? "" : " (retired)")",
            json: [
                "event": registered ? "activityToken" : "activityTokenRetired", "bundleID": token.bundleID, "environment": environment,
                "token": token.token.hex, "kind": kind, "activityType": token.activityType,
            ]
        )
    }

    func notification(_ notification: DeviceLinkNotification) {
        let payloadText = String(decoding: notification.payload, as: UTF8.self)
        var object: [String: Any] = [
            "event": "notification", "apnsID": notification.apnsID.text, "bundleID": notification.bundleID,
            "token": notification.token.hex, "pushType": notification.pushType.rawValue,
            "priority": notification.priority.rawValue, "attempt": notification.attempt,
        ]
        object["collapseID"] = notification.collapseID
        object["payload"] = (try? JSONSerialization.jsonObject(with: Data(notification.payload))) ?? payloadText
        var text = "notification \(notification.apnsID.text) \(notification.bundleID) \(notification.pushType.rawValue)"
        text += " priority=\(notification.priority.rawValue)"
        if let collapseID = notification.collapseID { text += " collapse-id=\(collapseID)" }
        text += ": " + Self.summary(ofPayload: object["payload"])
        line(text: text, json: object)
    }

    /// Prints a broadcast received on a channel the device's activities follow.
    func broadcast(_ broadcast: DeviceLinkBroadcast) {
        let payloadText = String(decoding: broadcast.payload, as: UTF8.self)
        let payload = (try? JSONSerialization.jsonObject(with: Data(broadcast.payload))) ?? payloadText
        let object: [String: Any] = [
            "event": "broadcast", "requestID": broadcast.requestID, "bundleID": broadcast.bundleID, "channel": broadcast.channelID,
            "priority": broadcast.priority, "payload": payload,
        ]
        var text = "broadcast \(broadcast.requestID) \(broadcast.bundleID) channel=\(broadcast.channelID) priority=\(broadcast.priority)"
        if let aps = (payload as? [String: Any])?["aps"] as? [String: Any], let event = aps["event"] as? String { text += ": \(event)" }
        line(text: text, json: object)
    }

    /// What a person wants to know of a payload: the alert's words, the badge and sound, or that it is silent.
    static func summary(ofPayload payload: Any?) -> String {
        guard let payload = payload as? [String: Any], let aps = payload["aps"] as? [String: Any] else {
            return "(no aps)"
        }
        var parts: [String] = []
        if let alert = aps["alert"] as? String {
            parts.append(quoted(alert))
        } else if let alert = aps["alert"] as? [String: Any] {
            let words = ["title", "subtitle", "body"].compactMap { alert[$0] as? String }.filter { !$0.isEmpty }
            parts.append(words.isEmpty ? "(alert without text)" : words.map(quoted).joined(separator: " · "))
        }
        if let badge = aps["badge"] as? Int { parts.append("badge \(badge)") }
        if aps["sound"] != nil { parts.append("sound") }
        if let category = aps["category"] as? String { parts.append("category \(category)") }
        if (aps["mutable-content"] as? Int) == 1 { parts.append("mutable-content") }
        if (aps["content-available"] as? Int) == 1, aps["alert"] == nil { parts.append("silent (content-available)") }
        return parts.isEmpty ? "(nothing to show)" : parts.joined(separator: ", ")
    }

    private static func quoted(_ text: String) -> String {
        "“" + (text.count > 80 ? String(text.prefix(79)) + "…" : text) + "”"
    }

    /// A report's detail as `key=value` words: strings quoted when they have spaces, lists joined by commas, nested
    /// objects named only, empty strings and nulls left out (the `--json` output has them whole).
    static func words(_ detail: [String: HeraldUserNotifications.JSONValue]) -> String {
        detail.keys.sorted().compactMap { key -> String? in
            guard let value = detail[key], let text = word(value) else { return nil }
            return "\(key)=\(text)"
        }.joined(separator: " ")
    }

    private static func word(_ value: HeraldUserNotifications.JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .bool(let flag): return String(flag)
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text):
            guard !text.isEmpty else { return nil }
            let short = text.count > 60 ? String(text.prefix(59)) + "…" : text
            return short.contains(" ") ? "“\(short)”" : short
        case .array(let items):
            let texts = items.compactMap(word)
            return texts.isEmpty ? nil : texts.joined(separator: ",")
        case .object(let members): return members.isEmpty ? nil : "{…}"
        }
    }

    func report(_ report: HeraldSimulator.DeviceReport) {
        if json, let text = try? report.jsonText() {
            write(#"{"event":"report","report":"# + text + "}")
            return
        }
        let detail = Self.words(report.detail)
        write("  \(report.event.rawValue) \(report.apnsID?.text ?? "-")" + (detail.isEmpty ? "" : " \(detail)"))
    }

    /// A line about the link itself, on standard error.
    func status(_ text: String) {
        FileHandle.standardError.write(Data("herald device: \(text)\n".utf8))
    }

    private func line(text: String, json object: [String: Any]) {
        guard json else { return write(text) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        write(String(decoding: data, as: UTF8.self))
    }

    private func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
