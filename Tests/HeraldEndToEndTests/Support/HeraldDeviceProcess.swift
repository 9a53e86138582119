import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `herald device --json`: a simulated device on a server's device link, read through the JSON lines it
/// prints (`connected`, `registered`, `notification`, `report`).
final class HeraldDeviceProcess: Sendable {
    let process: ExternalProcess

    /// Starts `herald device --json` for `app` and waits until it has printed the app's token.
    static func start(
        in workspace: HeraldWorkspace,
        server: HeraldServeProcess,
        device: DeviceCredentials,
        app: String = HeraldWorkspace.topic
    ) async throws -> HeraldDeviceProcess {
        try await start(in: workspace, url: server.deviceLinkURL, device: device, app: app)
    }

    /// Starts `herald device --json --server URL` for `app` (a balancer's address, or several URLs separated by commas)
    /// and waits until it has printed the app's token.
    static func start(
        in workspace: HeraldWorkspace,
        url: String,
        device: DeviceCredentials,
        app: String = HeraldWorkspace.topic
    ) async throws -> HeraldDeviceProcess {
        let process = try workspace.start([
            "device", "--server", url, "--id", device.id, "--secret", device.secret, "--app", app, "--json",
            "--max-backoff", "1",
        ])
        let device = HeraldDeviceProcess(process: process)
        _ = try await device.token(for: app)
        return device
    }

    private init(process: ExternalProcess) {
        self.process = process
    }

    /// Every JSON line printed so far, in order (a line still being written is left for next time); a line that
    /// is not a JSON object fails the test.
    var events: [[String: Any]] {
        let output = process.stdoutSoFar
        let complete = output.lastIndex(of: "\n").map { output[...$0] } ?? ""
        return complete.split(whereSeparator: \.isNewline).map { line in
            guard let object = HeraldExecutableInteropTests.jsonObject(String(line)) else {
                Issue.record("herald device printed a line that is not a JSON object: \(line)")
                return [:]
            }
            return object
        }
    }

    /// The `notification` lines, in the order printed.
    var notifications: [[String: Any]] { events.filter { $0["event"] as? String == "notification" } }

    /// The `apnsID` of every notification printed, lowercase, in order (a resend printed twice would be here twice).
    var printedIDs: [String] { notifications.compactMap { ($0["apnsID"] as? String)?.lowercased() } }

    /// The `apnsID`s (lowercase) printed after the device's `connection`-th `connected` line (1 is the first).
    func printedIDs(afterConnection connection: Int) -> [String] {
        var connections = 0
        var printed: [String] = []
        for event in events {
            switch event["event"] as? String {
            case "connected": connections += 1
            case "notification" where connections > connection: printed += [(event["apnsID"] as? String)?.lowercased()].compactMap { $0 }
            default: break
            }
        }
        return printed
    }

    /// The reports printed about `apnsID`.
    func reports(about apnsID: String) -> [[String: Any]] {
        events.compactMap { $0["event"] as? String == "report" ? $0["report"] as? [String: Any] : nil }
            .filter { ($0["apnsID"] as? String)?.lowercased() == apnsID.lowercased() }
    }

    /// The token the device printed for `app` (its first `registered` line), waiting for it.
    func token(for app: String) async throws -> String {
        try await eventually("herald device's token for \(app)", within: .seconds(60), state: describe()) {
            guard process.isRunning else { throw InteropError("herald device exited: \(describe())") }
            return events.first { $0["event"] as? String == "registered" && $0["bundleID"] as? String == app }?["token"] as? String
        }
    }

    /// Waits until the device has printed the notification `apnsID`, and returns its line.
    func waitForNotification(_ apnsID: String, deadline: Duration = .seconds(60)) async throws -> [String: Any] {
        try await eventually("herald device to print \(apnsID)", within: deadline, state: describe()) {
            notifications.first { ($0["apnsID"] as? String)?.lowercased() == apnsID.lowercased() }
        }
    }

    /// Waits until the device has printed a report of `event` about `apnsID`, and returns it.
    func waitForReport(_ event: String, about apnsID: String, deadline: Duration = .seconds(60)) async throws -> [String: Any] {
        try await eventually("herald device to report \(event) for \(apnsID)", within: deadline, state: describe()) {
            reports(about: apnsID).first { $0["event"] as? String == event }
        }
    }

    /// Ends the device (SIGTERM; it has nothing to save) and waits until it is gone.
    func stop() async throws {
        process.signal(SIGTERM)
        let stopped = try await process.wait(deadline: .seconds(30))
        if stopped.timedOut { throw InteropError("herald device did not stop: \(stopped)") }
    }

    /// Standard output and error, for failure messages.
    func describe() -> String {
        "herald device stdout:\n\(process.stdoutSoFar)\nstderr:\n\(process.stderrSoFar)"
    }
}
