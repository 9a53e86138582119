import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The README's quick start as a newcomer types it, in one directory: `herald serve`, `herald device --app …`,
/// `herald send --topic … --alert …`, no key, device or token set up by hand and no `--data-dir` (ports are free
/// ones here, so `--server` names them); then the README's curl block, pasted as it is.
@Suite("Interop: the README quick start, three commands", .tier(.process))
struct QuickStartTests {
    @Test("serve makes a development key, device creates itself in ./herald-data, send finds key and token, the README's curl gets 200")
    func threeCommands() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-quick-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("herald-data")
        let serveArguments = ["serve", "--tls-port", "0", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"]
        var serve = try ExternalProcess(herald, serveArguments, currentDirectory: directory)
        var device: ExternalProcess?
        do {
            let banner = try await serve.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
            #expect(banner.contains("key:") && banner.contains("HERALDTEAM") && banner.contains("made for development"), "\(banner)")
            let keyLine = try #require(banner.split(separator: "\n").first { $0.contains("key:") }, "\(banner)")
            let keyPath = try #require(keyLine.split(separator: " ").first { $0.hasSuffix(".p8") }.map(String.init), "\(keyLine)")
            #expect(keyPath.hasPrefix(data.standardizedFileURL.path + "/keys/AuthKey_"), "\(keyLine)")
            let tlsPort = try #require(HeraldExecutableInteropTests.port(after: "https://127.0.0.1:", in: banner))
            let webPort = try #require(HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner))
            // The banner's last line names the next commands (with --server: the ports are not the defaults here), and its
            // inspection: link answers with the API's resources.
            let next = try await serve.waitForOutput(deadline: .seconds(30)) { $0.hasPrefix("next: ") }
            let nextLine =
                "next: in another terminal, `herald device --server ws://127.0.0.1:\(webPort)/device-link --app com.example.app` "
                + "(a simulated iPhone), then `herald send --server https://localhost:\(tlsPort) --topic com.example.app --alert Hello`"
            #expect(next.split(separator: "\n").last.map(String.init) == nextLine, "\(next)")
            let index = try await ExternalProcess.run(
                "curl",
                ["--silent", "--show-error", "--fail", "--max-time", "30", "http://127.0.0.1:\(webPort)/api/v1/"],
                deadline: .seconds(60)
            )
            #expect(index.succeeded && index.stdout.contains(#"{"path":"/api/v1/devices","methods":["GET"]}"#), "\(index)")

            let phone = try await HeraldExecutableInteropTests.startDevice(herald, webPort: webPort, app: "com.example.app", in: directory)
            device = phone

            let sent = try await ExternalProcess.run(
                herald,
                ["send", "--server", "https://localhost:\(tlsPort)", "--topic", "com.example.app", "--alert", "Hello from Herald"],
                currentDirectory: directory,
                deadline: .seconds(60)
            )
            #expect(sent.succeeded, "\(sent)")
            #expect(sent.lines.first?.hasPrefix("200") == true, "\(sent)")
            let shown = try await phone.waitForOutput(deadline: .seconds(30)) { $0.contains("Hello from Herald") }
            #expect(shown.contains("Hello from Herald"))

            // Kept for the next run of `herald device`, which is then the same device with the same token.
            let credentials = data.appendingPathComponent("devices/my-phone.json")
            #expect(FileManager.default.fileExists(atPath: credentials.path))

            // `herald keys token` with no options signs with the kept key: its key id, the team registered for it.
            let signed = try await ExternalProcess.run(herald, ["keys", "token"], currentDirectory: directory)
            #expect(signed.succeeded && signed.lines.count == 1, "\(signed)")
            let parts = signed.lines.first?.split(separator: ".").map(String.init) ?? []
            let keyID = URL(fileURLWithPath: keyPath).deletingPathExtension().lastPathComponent.dropFirst("AuthKey_".count)
            #expect(parts.count == 3, "\(signed)")
            #expect(parts.first.flatMap(Self.jwtPart)?["kid"] as? String == String(keyID), "\(signed)")
            #expect(parts.dropFirst().first.flatMap(Self.jwtPart)?["iss"] as? String == "HERALDTEAM", "\(signed)")

            // The README's curl block, pasted where herald-data is (the port is this server's).
            let script = try Self.readmeCurlBlock().replacingOccurrences(of: "localhost:2197", with: "localhost:\(tlsPort)")
            let heraldDirectory = URL(fileURLWithPath: herald).deletingLastPathComponent().path
            let pasted = try await ExternalProcess.run(
                "bash",
                ["-euo", "pipefail", "-c", script],
                environment: ["PATH": heraldDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")],
                currentDirectory: directory,
                deadline: .seconds(60)
            )
            #expect(pasted.succeeded, "\(pasted)")
            #expect(pasted.stdout.hasPrefix("HTTP/2 200"), "\(pasted)")
            #expect(pasted.stdout.contains("apns-id: "), "\(pasted)")
            _ = try await phone.waitForOutput(deadline: .seconds(30)) { $0.contains("alert priority=10: “hi”") }

            // A second start names the same key: the banner's key line is there on every start.
            device?.signal(SIGTERM)
            serve.signal(SIGTERM)
            #expect(try await serve.wait(deadline: .seconds(20)).status == 0)
            serve = try ExternalProcess(herald, serveArguments, currentDirectory: directory)
            let again = try await serve.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
            let keyAgain = try #require(again.split(separator: "\n").first { $0.contains("key:") }, "\(again)")
            #expect(keyAgain.contains(keyPath) && keyAgain.contains("team HERALDTEAM") && !keyAgain.contains("made for"), "\(again)")
        } catch {
            device?.signal(SIGKILL)
            serve.signal(SIGKILL)
            throw error
        }
        device?.signal(SIGTERM)
        serve.signal(SIGTERM)
        let stopped = try await serve.wait(deadline: .seconds(20))
        #expect(stopped.status == 0, "\(stopped)")
    }

    /// A JWT's header or claims: base64url without padding, then JSON.
    static func jwtPart(_ text: String) -> [String: Any]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] }
    }

    /// The README's `sh` block that gets `TOKEN` and `JWT` and posts with curl.
    static func readmeCurlBlock() throws -> String {
        let readme = try String(contentsOf: Interop.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        guard let block = blocks.first(where: { $0.contains("JWT=$(herald keys token)") }) else {
            throw InteropError("README.md has no sh block with JWT=$(herald keys token)")
        }
        return block
    }
}
