import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The README's quick start as a newcomer types it: `herald serve`, `herald device --app …`, `herald send --topic …
/// --alert …`, no key, device or token set up by hand (ports are free ones here, so `--url` and `--server` name them).
@Suite("Interop: the README quick start, three commands")
struct QuickStartTests {
    @Test("serve makes a development key, device creates itself in the data directory, send finds key and token")
    func threeCommands() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-quick-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let serve = try ExternalProcess(
            herald,
            ["serve", "--data-dir", data.path, "--tls-port", "0", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"]
        )
        var device: ExternalProcess?
        do {
            let banner = try await serve.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
            #expect(banner.contains("key:") && banner.contains("HERALDTEAM"), "\(banner)")
            let tlsPort = try #require(HeraldExecutableInteropTests.port(after: "https://127.0.0.1:", in: banner))
            let webPort = try #require(HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner))

            let phone = try ExternalProcess(
                herald,
                ["device", "--data-dir", data.path, "--server", "ws://127.0.0.1:\(webPort)/device-link", "--app", "com.example.app"]
            )
            device = phone
            _ = try await phone.waitForOutput(deadline: .seconds(30)) { $0.hasPrefix("token com.example.app sandbox ") }

            let sent = try await ExternalProcess.run(
                herald,
                [
                    "send", "--data-dir", data.path, "--url", "https://localhost:\(tlsPort)", "--topic", "com.example.app", "--alert",
                    "Hello from Herald",
                ],
                deadline: .seconds(60)
            )
            #expect(sent.succeeded, "\(sent)")
            #expect(sent.lines.first?.hasPrefix("200") == true, "\(sent)")
            let shown = try await phone.waitForOutput(deadline: .seconds(30)) { $0.contains("Hello from Herald") }
            #expect(shown.contains("Hello from Herald"))

            // Kept for the next run of `herald device`, which is then the same device with the same token.
            let credentials = data.appendingPathComponent("devices/my-phone.json")
            #expect(FileManager.default.fileExists(atPath: credentials.path))
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
}
