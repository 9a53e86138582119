import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `herald serve` of a ``HeraldWorkspace``: the provider API over h2c and the web port (device link and
/// inspection API); TLS is off, so that start-up does not make a development PKI.
final class HeraldServeProcess: Sendable {
    let workspace: HeraldWorkspace
    let process: ExternalProcess
    /// The h2c (and HTTP/1.1) port of the provider API.
    let cleartextPort: Int
    /// The web port: `ws://…/device-link` and `/api/v1/…`.
    let linkPort: Int

    /// Starts `herald serve` and waits until it prints `herald: ready`. Without `ports` it binds ephemeral ones
    /// and reads them from the banner; with them (a restart), it binds exactly those. `dataDirectory`: another node
    /// of a cluster on the workspace's database (each process locks its data directory).
    static func start(
        in workspace: HeraldWorkspace,
        ports: (cleartext: Int, link: Int)? = nil,
        dataDirectory: URL? = nil,
        options: [String] = []
    ) async throws -> HeraldServeProcess {
        let arguments = [
            "serve", "--data-dir", (dataDirectory ?? workspace.data).path, "--tls-port", "-1",
            "--h2c-port", "\(ports?.cleartext ?? 0)", "--link-port", "\(ports?.link ?? 0)", "--log-level", "warning",
        ]
        let process = try workspace.start(arguments + options)
        let banner = try await process.waitForOutput(deadline: .seconds(60)) { $0 == "herald: ready" }
        guard let cleartext = HeraldExecutableInteropTests.port(after: "http://127.0.0.1:", in: banner),
            let link = HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner)
        else { throw InteropError("no ports in the banner:\n\(banner)") }
        return HeraldServeProcess(workspace: workspace, process: process, cleartextPort: cleartext, linkPort: link)
    }

    private init(workspace: HeraldWorkspace, process: ExternalProcess, cleartextPort: Int, linkPort: Int) {
        self.workspace = workspace
        self.process = process
        self.cleartextPort = cleartextPort
        self.linkPort = linkPort
    }

    /// The URL `herald device --server` takes.
    var deviceLinkURL: String { "ws://127.0.0.1:\(linkPort)/device-link" }
    /// The URL `herald send --server` takes.
    var providerURL: String { "http://127.0.0.1:\(cleartextPort)" }

    /// Posts a notification with curl over h2c (HTTP/2 with prior knowledge), with token authentication.
    func post(token: String, jwt: String, headers: [(String, String)] = [], body: String) async throws -> CurlAnswer {
        var arguments = ["--silent", "--show-error", "--include", "--max-time", "30", "--http2-prior-knowledge"]
        let allHeaders = [("authorization", "bearer \(jwt)"), ("apns-topic", HeraldWorkspace.topic), ("apns-push-type", "alert")] + headers
        for (name, value) in allHeaders { arguments += ["--header", "\(name): \(value)"] }
        arguments += ["--data-binary", body, "\(providerURL)/3/device/\(token)"]
        let result = try await ExternalProcess.run("curl", arguments, deadline: .seconds(60))
        guard result.succeeded else { throw InteropError("curl failed: \(result)") }
        return try CurlAnswer(parsing: result.stdout)
    }

    /// Runs `herald send` against this server with the workspace's kept key; expects exactly one `200` and returns
    /// its `apns-id`.
    func send(token: String, _ arguments: [String]) async throws -> String {
        let result = try await workspace.cli(
            ["send", "--server", providerURL, "--token", token, "--topic", HeraldWorkspace.topic, "--json"] + arguments
        )
        guard result.succeeded, let answer = result.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject),
            answer["status"] as? Int == 200, let apnsID = answer["apnsID"] as? String
        else { throw InteropError("herald send was not accepted: \(result)") }
        return apnsID
    }

    /// `GET /metrics` on the web port with curl: the Prometheus text.
    func metrics() async throws -> String {
        let result = try await ExternalProcess.run(
            "curl",
            ["--silent", "--show-error", "--max-time", "30", "http://127.0.0.1:\(linkPort)/metrics"],
            deadline: .seconds(60)
        )
        guard result.succeeded else { throw InteropError("curl /metrics failed: \(result)") }
        return result.stdout
    }

    /// `GET` on the inspection API with curl: the status and the JSON object of the body.
    func inspect(_ path: String) async throws -> (status: Int, object: [String: Any]?) {
        let result = try await ExternalProcess.run(
            "curl",
            ["--silent", "--show-error", "--max-time", "30", "--write-out", "\n%{http_code}", "http://127.0.0.1:\(linkPort)\(path)"],
            deadline: .seconds(60)
        )
        guard result.succeeded, let newline = result.stdout.lastIndex(of: "\n"),
            let status = Int(result.stdout[result.stdout.index(after: newline)...])
        else { throw InteropError("curl GET \(path) failed: \(result)") }
        let body = Data(result.stdout[..<newline].utf8)
        return (status, (try? JSONSerialization.jsonObject(with: body)) as? [String: Any])
    }

    /// `POST` of a JSON body on the web port with curl: the status and the JSON object of the answer.
    func webPost(_ path: String, json: String) async throws -> (status: Int, object: [String: Any]?) {
        let result = try await ExternalProcess.run(
            "curl",
            [
                "--silent", "--show-error", "--max-time", "30", "--write-out", "\n%{http_code}", "--header", "content-type: application/json",
                "--data-binary", json, "http://127.0.0.1:\(linkPort)\(path)",
            ],
            deadline: .seconds(60)
        )
        guard result.succeeded, let newline = result.stdout.lastIndex(of: "\n"),
            let status = Int(result.stdout[result.stdout.index(after: newline)...])
        else { throw InteropError("curl POST \(path) failed: \(result)") }
        let body = Data(result.stdout[..<newline].utf8)
        return (status, (try? JSONSerialization.jsonObject(with: body)) as? [String: Any])
    }

    /// `GET /api/v1/notifications/{apnsID}`: the notification with its trace, or `nil` on `404`.
    func notification(_ apnsID: String) async throws -> TracedNotification? {
        let (status, object) = try await inspect("/api/v1/notifications/\(apnsID)")
        if status == 404 { return nil }
        guard status == 200, let object else { throw InteropError("GET /api/v1/notifications/\(apnsID): \(status) \(object ?? [:])") }
        return TracedNotification(object)
    }

    /// `GET /api/v1/devices/{id}` → `online`.
    func isOnline(deviceID: String) async throws -> Bool {
        let (status, object) = try await inspect("/api/v1/devices/\(deviceID)")
        guard status == 200, let online = object?["online"] as? Bool else { throw InteropError("GET /api/v1/devices/\(deviceID): \(status)") }
        return online
    }

    /// `GET /api/v1/devices/{id}` → `nodes`: on a cluster node, the nodes holding the device's link.
    func nodes(deviceID: String) async throws -> [String] {
        let (status, object) = try await inspect("/api/v1/devices/\(deviceID)")
        guard status == 200, let nodes = object?["nodes"] as? [String] else {
            throw InteropError("GET /api/v1/devices/\(deviceID): \(status) \(object ?? [:])")
        }
        return nodes
    }

    /// Waits until the server sees the device connected (`online == expected`).
    func waitUntil(deviceID: String, isOnline expected: Bool) async throws {
        try await eventually("device \(deviceID) online == \(expected)", within: .seconds(60)) {
            try await isOnline(deviceID: deviceID) == expected ? true : nil
        }
    }

    /// Polls `GET /api/v1/notifications/{apnsID}` until `done` accepts it; returns it.
    func waitForNotification(
        _ apnsID: String,
        _ what: String,
        deadline: Duration = .seconds(60),
        until done: (TracedNotification) -> Bool
    ) async throws -> TracedNotification {
        var last: TracedNotification?
        return try await eventually("\(apnsID): \(what)", within: deadline, state: "last seen: \(last.map { "\($0)" } ?? "none")") {
            last = try await notification(apnsID)
            return last.flatMap { done($0) ? $0 : nil }
        }
    }

    /// SIGTERM, then waits for the graceful shutdown; returns how it ended.
    func stop() async throws -> ProcessResult {
        process.signal(SIGTERM)
        return try await process.wait(deadline: .seconds(60))
    }

    /// `kill -9`: no shutdown of any kind, as in a crash or a power cut of the process.
    func crash() {
        process.killAndWait()
    }
}
