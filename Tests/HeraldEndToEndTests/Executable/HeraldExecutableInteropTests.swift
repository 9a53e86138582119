import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tier 3 with real processes: the `herald` executable as a user runs it, driven by curl.
@Suite("Interop: the herald executable end to end", .serialized, .tier(.process))
struct HeraldExecutableInteropTests {
    static let keyID = "E2EKEY1234"
    static let teamID = "E2ETEAM123"
    static let topic = "com.example.app"

    @Test("serve, keys, tokens, a curl push, notifications list, unregister → 410, /metrics, a bad argument, SIGTERM")
    func endToEnd() async throws {
        let herald = try await Self.heraldExecutable()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        // serve on ephemeral ports; the banner names them.
        let server = try ExternalProcess(
            herald,
            ["serve", "--data-dir", data.path, "--tls-port", "0", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"]
        )
        let banner = try await server.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
        let tlsPort = try #require(Self.port(after: "https://127.0.0.1:", in: banner), "\(banner)")
        let cleartextPort = try #require(Self.port(after: "http://127.0.0.1:", in: banner), "\(banner)")
        #expect(tlsPort > 0 && cleartextPort > 0 && tlsPort != cleartextPort)

        func cli(_ arguments: String...) async throws -> ProcessResult {
            try await ExternalProcess.run(herald, arguments, deadline: .seconds(30))
        }

        let p8 = data.appendingPathComponent("key.p8").path
        let generated = try await cli("keys", "generate", "--data-dir", data.path, "--key-id", Self.keyID, "--team-id", Self.teamID, "--out", p8)
        #expect(generated.succeeded, "\(generated)")
        #expect(generated.lines == [p8], "\(generated)")
        #expect(FileManager.default.fileExists(atPath: p8))
        // Generating again with the same key id is refused and leaves the registered key's .p8 untouched.
        let p8Before = try String(contentsOfFile: p8, encoding: .utf8)
        let again = try await cli("keys", "generate", "--data-dir", data.path, "--key-id", Self.keyID, "--team-id", Self.teamID, "--out", p8)
        #expect(!again.succeeded)
        #expect(try String(contentsOfFile: p8, encoding: .utf8) == p8Before)

        let registered = try await cli("tokens", "register", "--data-dir", data.path, "--topic", Self.topic)
        #expect(registered.succeeded, "\(registered)")
        let token = try #require(registered.lines.first, "\(registered)")
        #expect(registered.lines.count == 1 && token.count == 64 && token.allSatisfy(\.isHexDigit), "\(registered)")

        let signed = try await cli("keys", "token", "--p8", p8, "--key-id", Self.keyID, "--team-id", Self.teamID)
        #expect(signed.succeeded, "\(signed)")
        let jwt = try #require(signed.lines.first, "\(signed)")
        #expect(jwt.split(separator: ".").count == 3, "\(signed)")

        func push() async throws -> CurlAnswer {
            let result = try await ExternalProcess.run(
                "curl",
                [
                    "--silent", "--show-error", "--include", "--max-time", "20", "--http2",
                    "--cacert", data.appendingPathComponent("tls/ca.pem").path,
                    "--resolve", "localhost:\(tlsPort):127.0.0.1",
                    "--header", "authorization: bearer \(jwt)", "--header", "apns-topic: \(Self.topic)",
                    "--header", "apns-push-type: alert",
                    "--data-binary", #"{"aps":{"alert":{"title":"Hello","body":"from Herald"}}}"#,
                    "https://localhost:\(tlsPort)/3/device/\(token)",
                ]
            )
            guard result.succeeded else { throw InteropError("curl failed: \(result)") }
            return try CurlAnswer(parsing: result.stdout)
        }

        let accepted = try await push()
        #expect(accepted.version == "HTTP/2" && accepted.status == 200, "\(accepted)")
        let apnsID = try #require(accepted.headers["apns-id"], "\(accepted)")

        let listed = try await cli("notifications", "list", "--data-dir", data.path, "--json")
        #expect(listed.succeeded, "\(listed)")
        #expect(listed.lines.count == 1, "\(listed)")
        let notification = try #require(listed.lines.first.flatMap(Self.jsonObject), "\(listed)")
        #expect(notification["apnsID"] as? String == apnsID, "\(listed)")
        #expect(notification["token"] as? String == token, "\(listed)")
        #expect(notification["topic"] as? String == Self.topic, "\(listed)")
        #expect(notification["pushType"] as? String == "alert", "\(listed)")

        let unregistered = try await cli("tokens", "unregister", "--data-dir", data.path, token)
        #expect(unregistered.succeeded, "\(unregistered)")
        // "unregistered <token> at <milliseconds>"
        let words = unregistered.lines.first?.split(separator: " ") ?? []
        #expect(words.count == 4 && words.first == "unregistered" && words[1] == token, "\(unregistered)")
        let unregisteredAt = words.last.flatMap { Int64($0) }
        #expect(unregisteredAt != nil, "\(unregistered)")
        // The command returns once the server has seen the change (docs/delivery.md, rule 14): no wait here. The push
        // that was stored for the offline token is discarded, and the next push is refused.
        let gone = try await push()
        #expect(gone.status == 410, "\(gone)")
        #expect(gone.reason == "Unregistered", "\(gone)")
        #expect(gone.timestamp != nil && gone.timestamp == unregisteredAt, "\(gone)")
        let afterUnregister = try await cli("notifications", "list", "--data-dir", data.path, "--json")
        let discarded = try #require(afterUnregister.lines.first.flatMap(Self.jsonObject), "\(afterUnregister)")
        #expect(discarded["apnsID"] as? String == apnsID && discarded["state"] as? String == "discarded", "\(afterUnregister)")

        // Prometheus on the web port, as a scraper reads it: one push accepted, one answered 410 Unregistered.
        let webPort = try #require(Self.port(after: "metrics:    http://127.0.0.1:", in: banner), "\(banner)")
        let scrape = try await ExternalProcess.run(
            "curl",
            ["--silent", "--show-error", "--include", "--max-time", "20", "http://127.0.0.1:\(webPort)/metrics"]
        )
        #expect(scrape.succeeded, "\(scrape)")
        let metrics = try CurlAnswer(parsing: scrape.stdout)
        #expect(metrics.status == 200, "\(metrics)")
        #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8", "\(metrics)")
        let samples = Set(metrics.body.split(separator: "\n").map(String.init))
        #expect(samples.contains("herald_notifications_accepted_total 1"), "\(metrics)")
        #expect(samples.contains(#"herald_notifications_rejected_total{reason="Unregistered",status="410"} 1"#), "\(metrics)")
        #expect(samples.contains("herald_accept_latency_seconds_count 1"), "\(metrics)")
        #expect(samples.contains("herald_notifications_stored_total 1"), "\(metrics)")

        let bad = try await cli("tokens", "unregister", "--data-dir", data.path, "not-hex")
        #expect(bad.status != 0 && !bad.timedOut, "\(bad)")
        // Exactly one line: its text, then the newline that ends it.
        let errorLines = bad.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(errorLines.count == 2 && errorLines.last == "", "\(bad)")
        #expect(errorLines.first?.hasPrefix("herald: error:") == true, "\(bad)")
        #expect(bad.stdout.isEmpty, "\(bad)")

        // A bad serve option: one line, non-zero, before anything listens.
        let badServe = try await cli("serve", "--data-dir", data.path, "--event-loops", "0", "--tls-port", "0", "--h2c-port", "0", "--link-port", "0")
        #expect(badServe.status != 0 && !badServe.timedOut, "\(badServe)")
        #expect(badServe.stderr.hasPrefix("herald: error: --event-loops"), "\(badServe)")

        // SIGTERM: a graceful shutdown and exit status 0.
        server.signal(SIGTERM)
        let stopped = try await server.wait(deadline: .seconds(20))
        #expect(!stopped.timedOut, "\(stopped)")
        #expect(stopped.status == 0, "\(stopped)")
        #expect(server.exitedNormally, "\(stopped)")
    }

    @Test("herald --version prints the version, which the serve banner shows too")
    func version() async throws {
        let herald = try await Self.heraldExecutable()
        let printed = try await ExternalProcess.run(herald, ["--version"])
        #expect(printed.succeeded && printed.stderr.isEmpty, "\(printed)")
        let version = try #require(printed.lines.first, "\(printed)")
        #expect(printed.lines.count == 1, "\(printed)")
        let parts = version.split(separator: "-", maxSplits: 1)[0].split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(version) is not MAJOR.MINOR.PATCH")

        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-version-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ExternalProcess(
            herald,
            ["serve", "--data-dir", data.path, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "-1", "--log-level", "warning"]
        )
        defer { server.killAndWait() }
        let banner = try await server.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
        #expect(banner.hasPrefix("Herald \(version) sandbox gateway\n"), "\(banner)")
        // The one version the repository's VERSION file gives (scripts and release names read it).
        let file = try String(contentsOf: Interop.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
        #expect(file == version + "\n", "VERSION says \(file.debugDescription), herald --version \(version)")
    }

    @Test("/metrics names the version that serves: herald_build_info")
    func buildInfo() async throws {
        let herald = try await Self.heraldExecutable()
        let version = try #require(try await ExternalProcess.run(herald, ["--version"]).lines.first)
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let metrics = try await server.metrics()
            #expect(metrics.contains("herald_build_info{version=\"\(version)\"} 1"), "\(metrics)")
            server.process.signal(SIGTERM)
            _ = try await server.process.wait(deadline: .seconds(30))
        }
    }

    /// The port in the first `<prefix><port>` of the banner.
    static func port(after prefix: String, in banner: String) -> Int? {
        guard let start = banner.range(of: prefix) else { return nil }
        return Int(banner[start.upperBound...].prefix { $0.isNumber })
    }

    /// `herald device --app APP` in `directory` (it creates its device in `./herald-data`, as a newcomer runs it),
    /// once it has printed the app's token.
    static func startDevice(_ herald: String, webPort: Int, app: String, in directory: URL) async throws -> ExternalProcess {
        let device = try ExternalProcess(
            herald,
            ["device", "--server", "ws://127.0.0.1:\(webPort)/device-link", "--app", app],
            currentDirectory: directory
        )
        do {
            _ = try await device.waitForOutput(deadline: .seconds(30)) { $0.hasPrefix("token \(app) sandbox ") }
        } catch {
            device.signal(SIGKILL)
            throw error
        }
        return device
    }

    static func jsonObject(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// The `herald` that this test bundle was built with: SwiftPM puts executables next to the test bundle
    /// (`.build/<triple>/debug/`). When it is not there, it is built into a scratch path of its own.
    static func heraldExecutable() async throws -> String {
        var directories: [URL] = []
        if let running = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: running).deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent())
        directories.append(Bundle.main.bundleURL)
        for directory in directories {
            let candidate = directory.appendingPathComponent("herald").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let scratch = Interop.packageRoot.appendingPathComponent(".build-interop-herald").path
        let package = Interop.packageRoot.path
        let build = try await ExternalProcess.run(
            "swift",
            ["build", "--package-path", package, "--scratch-path", scratch, "--product", "herald"],
            deadline: .seconds(1200)
        )
        guard build.succeeded else { throw InteropError("swift build --product herald failed: \(build)") }
        let binPath = try await ExternalProcess.run(
            "swift",
            ["build", "--package-path", package, "--scratch-path", scratch, "--show-bin-path"]
        )
        let built = URL(fileURLWithPath: binPath.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).appendingPathComponent("herald").path
        guard binPath.succeeded, FileManager.default.isExecutableFile(atPath: built) else {
            throw InteropError("no herald after swift build: \(binPath)")
        }
        return built
    }
}
