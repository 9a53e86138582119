import Foundation
import HeraldDeviceLink
import HeraldSimulator

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
        text += " \(payloadText)"
        line(text: text, json: object)
    }

    func report(_ report: HeraldSimulator.DeviceReport) {
        if json, let text = try? report.jsonText() {
            write(#"{"event":"report","report":"# + text + "}")
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let detail = (try? encoder.encode(report.detail)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        write("  \(report.event.rawValue) \(report.apnsID?.text ?? "-") \(detail)")
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
