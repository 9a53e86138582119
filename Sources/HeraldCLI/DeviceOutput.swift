import Foundation
import HeraldCore
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
            json: ["event": "connected", "device": .string(welcome.deviceID), "name": .string(welcome.name)]
        )
    }

    func enrolled(_ welcome: DeviceLinkWelcome, secret: String) {
        line(
            text: "enrolled as \(welcome.deviceID) (\(welcome.name)) secret \(secret)",
            json: ["event": "enrolled", "device": .string(welcome.deviceID), "name": .string(welcome.name), "secret": .string(secret)]
        )
    }

    func registered(_ registration: DeviceLinkRegistration) {
        let bundle = registration.bundleID
        let environment = registration.environment.rawValue
        line(
            text: "token \(bundle) \(environment) \(registration.token.hex)\(registration.isNew ? " (new)" : "")",
            json: [
                "event": "registered", "bundleID": .string(bundle), "environment": .string(environment), "token": .string(registration.token.hex),
                "new": .bool(registration.isNew),
            ]
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
                "event": registered ? "activityToken" : "activityTokenRetired", "bundleID": .string(token.bundleID),
                "environment": .string(environment), "token": .string(token.token.hex), "kind": .string(kind),
                "activityType": .string(token.activityType),
            ]
        )
    }

    func notification(_ notification: DeviceLinkNotification) {
        let payloadText = String(decoding: notification.payload, as: UTF8.self)
        var object: [String: JSONValue] = [
            "event": "notification", "apnsID": .string(notification.apnsID.text), "bundleID": .string(notification.bundleID),
            "token": .string(notification.token.hex), "pushType": .string(notification.pushType.rawValue),
            "priority": .int(notification.priority.rawValue), "attempt": .integer(notification.attempt),
        ]
        if let collapseID = notification.collapseID { object["collapseID"] = .string(collapseID) }
        object["payload"] = Self.payload(notification.payload, text: payloadText)
        var text = "notification \(notification.apnsID.text) \(notification.bundleID) \(notification.pushType.rawValue)"
        text += " priority=\(notification.priority.rawValue)"
        if let collapseID = notification.collapseID { text += " collapse-id=\(collapseID)" }
        text += ": " + Self.summary(ofPayload: object["payload"])
        line(text: text, json: object)
    }

    /// Prints a broadcast received on a channel the device's activities follow.
    func broadcast(_ broadcast: DeviceLinkBroadcast) {
        let payloadText = String(decoding: broadcast.payload, as: UTF8.self)
        let payload = Self.payload(broadcast.payload, text: payloadText)
        let object: [String: JSONValue] = [
            "event": "broadcast", "requestID": .string(broadcast.requestID), "bundleID": .string(broadcast.bundleID),
            "channel": .string(broadcast.channelID), "priority": .integer(broadcast.priority), "payload": payload,
        ]
        var text = "broadcast \(broadcast.requestID) \(broadcast.bundleID) channel=\(broadcast.channelID) priority=\(broadcast.priority)"
        if let event = payload.objectValue?["aps"]?.objectValue?["event"]?.stringValue { text += ": \(event)" }
        line(text: text, json: object)
    }

    /// A payload's value, or its text when it is not JSON.
    private static func payload(_ bytes: [UInt8], text: String) -> JSONValue {
        (try? JSONParser.parse(bytes)) ?? .string(text)
    }

    /// What a person wants to know of a payload: the alert's words, the badge and sound, or that it is silent.
    static func summary(ofPayload payload: JSONValue?) -> String {
        // A web push message (docs/web-push.md, "What is stored"): only the web app can read it.
        if let message = payload?.objectValue?["web_push_message"]?.objectValue {
            let bytes = message["body"]?.stringValue.flatMap { Base64URL.decode($0.utf8) }?.count ?? 0
            let coding = message["encoding"]?.stringValue ?? "empty"
            return "web push message (\(coding), \(bytes) bytes encrypted, urgency \(message["urgency"]?.stringValue ?? "normal"))"
        }
        guard let aps = payload?.objectValue?["aps"]?.objectValue else { return "(no aps)" }
        var parts: [String] = []
        if let alert = aps["alert"]?.stringValue {
            parts.append(quoted(alert))
        } else if let alert = aps["alert"]?.objectValue {
            let words = ["title", "subtitle", "body"].compactMap { alert[$0]?.stringValue }.filter { !$0.isEmpty }
            parts.append(words.isEmpty ? "(alert without text)" : words.map(quoted).joined(separator: " · "))
        }
        if let badge = aps["badge"]?.integerValue { parts.append("badge \(badge)") }
        if aps["sound"] != nil { parts.append("sound") }
        if let category = aps["category"]?.stringValue { parts.append("category \(category)") }
        if isOne(aps["mutable-content"]) { parts.append("mutable-content") }
        if isOne(aps["content-available"]), aps["alert"] == nil { parts.append("silent (content-available)") }
        return parts.isEmpty ? "(nothing to show)" : parts.joined(separator: ", ")
    }

    /// Whether a flag is set: `1` (or `1.0`, or `true`, as Foundation's bridging read them).
    private static func isOne(_ value: JSONValue?) -> Bool {
        value?.integerValue == 1 || value == .bool(true)
    }

    private static func quoted(_ text: String) -> String {
        "“" + (text.count > 80 ? String(text.prefix(79)) + "…" : text) + "”"
    }

    /// A report's detail as `key=value` words: strings quoted when they have spaces, lists joined by commas, nested
    /// objects named only, empty strings and nulls left out (the `--json` output has them whole).
    static func words(_ detail: [String: JSONValue]) -> String {
        detail.keys.sorted().compactMap { key -> String? in
            guard let value = detail[key], let text = word(value) else { return nil }
            return "\(key)=\(text)"
        }.joined(separator: " ")
    }

    private static func word(_ value: JSONValue) -> String? {
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

    private func line(text: String, json object: [String: JSONValue]) {
        guard json else { return write(text) }
        write(OutputFormat.jsonLine(object))
    }

    /// Writes one line on standard output.
    func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
