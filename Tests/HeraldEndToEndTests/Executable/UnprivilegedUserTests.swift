import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tier 3 with real processes: Herald as it runs from the Debian package or the container image, as a user who is
/// not root (docs/install.md). Every socket option Herald sets must be one an unprivileged process may set: the
/// servers once asked for `TCP_NODELAY` at the socket level, which is `SO_DEBUG` there; as root that went unseen (and
/// Nagle stayed on), as any other user every connection failed.
@Suite("End to end: herald serve, device and send as a user who is not root", .serialized, .tier(.process))
struct UnprivilegedUserTests {
    /// The command that runs `herald` as `nobody` when the tests run as root (CI), else as the tests' own user.
    static func command(_ herald: String) -> (executable: String, prefix: [String]) {
        getuid() == 0 ? ("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", herald]) : (herald, [])
    }

    @Test("A push from herald send reaches herald device through herald serve, all three unprivileged; /readyz answers")
    func serveDeviceAndSend() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let (executable, prefix) = Self.command(herald)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-unprivileged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(chmod(directory.path, 0o777) == 0)
        let data = directory.appendingPathComponent("herald-data").path

        let server = try ExternalProcess(
            executable,
            prefix + ["serve", "--data-dir", data, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"]
        )
        defer { server.signal(SIGKILL) }
        let banner = try await server.waitForOutput(deadline: .seconds(60)) { $0 == "herald: ready" }
        let cleartext = try #require(HeraldExecutableInteropTests.port(after: "http://127.0.0.1:", in: banner), "\(banner)")
        let link = try #require(HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner), "\(banner)")

        let health = try await ExternalProcess.run(executable, prefix + ["health", "--link-port", "\(link)"], deadline: .seconds(30))
        #expect(health.succeeded && health.stdout == "herald: /readyz 200 {\"status\":\"ready\"}\n", "\(health)")

        let device = try ExternalProcess(
            executable,
            prefix + ["device", "--data-dir", data, "--server", "ws://127.0.0.1:\(link)/device-link", "--app", "com.example.app"]
        )
        defer { device.signal(SIGKILL) }
        _ = try await device.waitForOutput(deadline: .seconds(30)) { $0.hasPrefix("token com.example.app sandbox ") }

        let send = try await ExternalProcess.run(
            executable,
            prefix + [
                "send", "--data-dir", data, "--server", "http://127.0.0.1:\(cleartext)", "--topic", "com.example.app", "--alert",
                "Sent by nobody",
            ],
            deadline: .seconds(60)
        )
        #expect(send.succeeded && send.stdout.hasPrefix("200 "), "\(send)")
        let shown = try await device.waitForOutput(deadline: .seconds(30)) { $0.contains("Sent by nobody") }
        #expect(shown.contains("Sent by nobody"))
    }
}
