import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tier 3 with real processes: `herald send` against `herald serve`, as a newcomer runs them.
@Suite("Interop: herald send against herald serve", .serialized, .tier(.process))
struct HeraldSendInteropTests {
    static let topic = "com.example.app"

    /// A running `herald serve` with a temporary data directory, a kept key and a registered token.
    final class Server: Sendable {
        let herald: String
        let data: URL
        let process: ExternalProcess
        let tlsPort: Int
        let cleartextPort: Int
        let token: String

        init() async throws {
            herald = try await HeraldExecutableInteropTests.heraldExecutable()
            data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-send-\(UUID().uuidString)")
            process = try ExternalProcess(
                herald,
                [
                    "serve", "--data-dir", data.path, "--tls-port", "0", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning",
                    "--no-development-key",
                ]
            )
            let banner = try await process.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
            tlsPort = try #require(HeraldExecutableInteropTests.port(after: "https://127.0.0.1:", in: banner))
            cleartextPort = try #require(HeraldExecutableInteropTests.port(after: "http://127.0.0.1:", in: banner))
            let keyFile = data.appendingPathComponent("out.p8").path
            let generated = try await ExternalProcess.run(
                herald,
                ["keys", "generate", "--data-dir", data.path, "--team-id", "SENDTEAM12", "--out", keyFile]
            )
            guard generated.succeeded else { throw InteropError("keys generate failed: \(generated)") }
            let registered = try await ExternalProcess.run(
                herald,
                ["tokens", "register", "--data-dir", data.path, "--topic", HeraldSendInteropTests.topic]
            )
            guard registered.succeeded, let token = registered.lines.first else { throw InteropError("tokens register failed: \(registered)") }
            self.token = token
        }

        /// Runs `herald send` with the data directory and the TLS URL unless `url` says otherwise.
        func send(_ arguments: [String], url: String? = nil) async throws -> ProcessResult {
            let target = url ?? "https://localhost:\(tlsPort)"
            return try await ExternalProcess.run(herald, ["send", "--data-dir", data.path, "--server", target] + arguments, deadline: .seconds(60))
        }

        /// Runs another `herald` command with the data directory.
        func cli(_ command: [String], _ arguments: [String] = []) async throws -> ProcessResult {
            try await ExternalProcess.run(herald, command + ["--data-dir", data.path] + arguments, deadline: .seconds(30))
        }

        func stop() async throws {
            process.signal(SIGTERM)
            let stopped = try await process.wait(deadline: .seconds(20))
            try? FileManager.default.removeItem(at: data)
            #expect(stopped.status == 0, "\(stopped)")
        }
    }

    static func withServer(_ body: (Server) async throws -> Void) async throws {
        let server = try await Server()
        do {
            try await body(server)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    /// The words of the only stdout line.
    static func words(_ result: ProcessResult) -> [String] {
        (result.lines.first ?? "").split(separator: " ").map(String.init)
    }

    static func value(after name: String, in words: [String]) -> String? {
        words.firstIndex(of: name).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
    }

    @Test("a newcomer's push over TLS and over h2c: 200 with an apns-id, exit 0", arguments: [true, false])
    func accepted(tls: Bool) async throws {
        try await Self.withServer { server in
            let url = tls ? nil : "http://127.0.0.1:\(server.cleartextPort)"
            let result = try await server.send(["--token", server.token, "--alert", "hi", "--topic", Self.topic], url: url)
            #expect(result.succeeded, "\(result)")
            #expect(result.lines.count == 1, "\(result)")
            let words = Self.words(result)
            #expect(words.first == "200", "\(result)")
            #expect(isUUID(Self.value(after: "apns-id", in: words)), "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
    }

    @Test("rejections: 400 BadDeviceToken and 410 Unregistered with a timestamp, exit 1")
    func rejected() async throws {
        try await Self.withServer { server in
            let bad = try await server.send(["--token", unknownDeviceToken, "--alert", "hi", "--topic", Self.topic])
            #expect(bad.status == 1 && !bad.timedOut, "\(bad)")
            #expect(Array(Self.words(bad).prefix(2)) == ["400", "BadDeviceToken"], "\(bad)")
            #expect(isUUID(Self.value(after: "apns-id", in: Self.words(bad))), "\(bad)")

            let unregistered = try await server.cli(["tokens", "unregister"], [server.token])
            #expect(unregistered.succeeded, "\(unregistered)")
            // The server sees another process's registry changes within its refresh interval (200 ms).
            try await Task.sleep(for: .milliseconds(300))
            let gone = try await server.send(["--token", server.token, "--alert", "hi", "--topic", Self.topic, "--json"])
            #expect(gone.status == 1, "\(gone)")
            let object = try #require(gone.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(gone)")
            #expect(object["status"] as? Int == 410 && object["reason"] as? String == "Unregistered", "\(gone)")
            #expect((object["timestamp"] as? NSNumber)?.int64Value ?? 0 > 0, "\(gone)")
        }
    }

    @Test("a .apns file: its Simulator Target Bundle is the topic and is not sent; --json prints one object")
    func apnsFile() async throws {
        try await Self.withServer { server in
            let file = server.data.appendingPathComponent("hello.apns")
            let text = """
                {
                    "Simulator Target Bundle": "\(Self.topic)",
                    "aps": { "alert": { "title": "Hello", "body": "from a .apns file" }, "sound": "default" }
                }
                """
            try Data(text.utf8).write(to: file)
            let result = try await server.send([file.path, "--token", server.token, "--json"])
            #expect(result.succeeded, "\(result)")
            let object = try #require(result.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(result)")
            #expect(object["status"] as? Int == 200, "\(result)")
            let apnsID = try #require(object["apnsID"] as? String, "\(result)")
            #expect(object["latencyMs"] is NSNumber, "\(result)")

            let listed = try await server.cli(["notifications", "list"], ["--json"])
            let stored = try #require(listed.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(listed)")
            #expect(stored["apnsID"] as? String == apnsID && stored["topic"] as? String == Self.topic, "\(listed)")
            let payload = try #require(stored["payload"] as? String)
            #expect(!payload.contains("Simulator Target Bundle") && payload.contains("from a .apns file"), "\(payload)")
        }
    }

    @Test("--repeat 50 --rate 500: a summary of 50 accepted with latency percentiles; --json ends with a summary object")
    func repeatAndRate() async throws {
        try await Self.withServer { server in
            let arguments = ["--token", server.token, "--alert", "load", "--topic", Self.topic, "--repeat", "50", "--rate", "500"]
            let started = ContinuousClock.now
            let human = try await server.send(arguments)
            // 50 at 500/s take about 0.1 s of pacing.
            #expect(ContinuousClock.now - started >= .milliseconds(98))
            #expect(human.succeeded, "\(human)")
            #expect(human.lines.first?.hasPrefix("sent 50, accepted 50, rejected 0 in ") == true, "\(human)")
            #expect(human.lines.last?.hasPrefix("latency p50 ") == true, "\(human)")
            #expect(human.lines.count == 2, "\(human)")

            let json = try await server.send(arguments + ["--json"])
            #expect(json.succeeded, "\(json)")
            #expect(json.lines.count == 51, "\(json)")
            let objects = json.lines.compactMap(HeraldExecutableInteropTests.jsonObject)
            #expect(objects.prefix(50).allSatisfy { $0["status"] as? Int == 200 }, "\(json)")
            let summary = try #require(objects.last?["summary"] as? [String: Any], "\(json)")
            #expect(summary["sent"] as? Int == 50 && summary["accepted"] as? Int == 50 && summary["rejected"] as? Int == 0, "\(json)")
            let latency = try #require(summary["latencyMs"] as? [String: Any], "\(json)")
            #expect(Set(latency.keys) == ["p50", "p90", "p99", "max"], "\(json)")
        }
    }

    @Test("a mixed load counts each reason and exits 1")
    func mixedLoad() async throws {
        try await Self.withServer { server in
            let result = try await server.send(["--token", unknownDeviceToken, "--alert", "x", "--topic", Self.topic, "--repeat", "5"])
            #expect(result.status == 1, "\(result)")
            #expect(result.lines.first?.hasPrefix("sent 5, accepted 0, rejected 5") == true, "\(result)")
            #expect(result.lines.contains("  BadDeviceToken: 5"), "\(result)")
        }
    }

    @Test("explicit key options and certificate authentication")
    func explicitCredentials() async throws {
        try await Self.withServer { server in
            let keyFile = server.data.appendingPathComponent("out.p8").path
            let keyID = try #require(ProviderKeyName.keyID(inKeysDirectoryOf: server.data))
            let token = try await server.send([
                "--token", server.token, "--alert", "x", "--topic", Self.topic, "--key-file", keyFile, "--key-id", keyID, "--team-id", "SENDTEAM12",
            ])
            #expect(token.succeeded && Self.words(token).first == "200", "\(token)")

            let cert = server.data.appendingPathComponent("client.pem").path
            let certKey = server.data.appendingPathComponent("client-key.pem").path
            let issued = try await server.cli(["certs", "issue"], ["--topic", Self.topic, "--cert", cert, "--key", certKey])
            #expect(issued.succeeded, "\(issued)")
            let certificate = try await server.send(["--token", server.token, "--alert", "x", "--cert", cert, "--cert-key", certKey])
            #expect(certificate.succeeded && Self.words(certificate).first == "200", "\(certificate)")
        }
    }

    @Test("usage errors and a server that is not there: one line on stderr, exit 1")
    func usageErrors() async throws {
        try await Self.withServer { server in
            let noPayload = try await server.send(["--token", server.token, "--topic", Self.topic])
            #expect(noPayload.status == 1 && noPayload.stdout.isEmpty, "\(noPayload)")
            #expect(noPayload.stderr.hasPrefix("herald: error: give a payload") && noPayload.stderr.split(separator: "\n").count == 1, "\(noPayload)")

            let closedPort = try await ExternalProcess.run(
                server.herald,
                [
                    "send", "--data-dir", server.data.path, "--server", "http://127.0.0.1:1", "--token", server.token, "--alert", "x", "--topic",
                    Self.topic,
                ]
            )
            #expect(closedPort.status == 1 && closedPort.stdout.isEmpty, "\(closedPort)")
            #expect(
                closedPort.stderr
                    == "herald: error: could not connect: http://127.0.0.1:1: Connection refused (is `herald serve` running? --server takes its TLS: or cleartext: URL)\n",
                "\(closedPort)"
            )
            #expect(closedPort.stderr.split(separator: "\n").count == 1, "\(closedPort)")
        }
    }
}

/// The key id of the one key `herald keys generate` kept in a data directory.
enum ProviderKeyName {
    static func keyID(inKeysDirectoryOf data: URL) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("keys").path)) ?? []
        guard names.count == 1, let name = names.first, name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        return String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
    }
}
