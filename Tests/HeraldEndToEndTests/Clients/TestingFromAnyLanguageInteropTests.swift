import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// docs/testing-from-any-language.md as a user runs it: `herald serve` and `herald device --app com.example.app` as
/// processes, then the page's curl block pasted as it is and the pytest example (`Examples/TestingFromAnyLanguage`)
/// in the interop venv, both against the server's reset, fault and wait endpoints.
@Suite("Interop: testing from any language (curl, pytest)", .tier(.process))
struct TestingFromAnyLanguageInteropTests {
    static var pytestFile: String {
        Interop.packageRoot.appendingPathComponent("Examples/TestingFromAnyLanguage/test_provider_retry.py").path
    }

    @Test("the page's curl block and the pytest example pass against herald serve and herald device")
    func curlAndPytest() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let python = try await Interop.python()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-any-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serve = try ExternalProcess(
            herald,
            ["serve", "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"],
            currentDirectory: directory
        )
        var device: ExternalProcess?
        defer {
            device?.signal(SIGKILL)
            serve.signal(SIGKILL)
        }
        let banner = try await serve.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
        let h2cPort = try #require(HeraldExecutableInteropTests.port(after: "cleartext:  http://127.0.0.1:", in: banner), "\(banner)")
        let webPort = try #require(HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner), "\(banner)")
        device = try await HeraldExecutableInteropTests.startDevice(herald, webPort: webPort, app: "com.example.app", in: directory)
        let heraldDirectory = URL(fileURLWithPath: herald).deletingLastPathComponent().path
        let path = heraldDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

        let block = try Self.curlBlock()
            .replacingOccurrences(of: "127.0.0.1:2196", with: "127.0.0.1:\(webPort)")
            .replacingOccurrences(of: "127.0.0.1:2195", with: "127.0.0.1:\(h2cPort)")
        let curl = try await ExternalProcess.run(
            "bash",
            ["-euo", "pipefail", "-c", block],
            environment: ["PATH": path],
            currentDirectory: directory,
            deadline: .seconds(60)
        )
        #expect(curl.succeeded, "\(curl)")
        #expect(curl.lines.last == "retry delivered", "\(curl)")

        // What the server holds before the pytest example: it must still be there after it (the example resets nothing).
        let before = try await Self.apnsIDs(webPort: webPort)
        #expect(!before.isEmpty)

        let jwt = try await ExternalProcess.run(herald, ["keys", "token"], currentDirectory: directory)
        #expect(jwt.succeeded, "\(jwt)")
        let pytest = try await ExternalProcess.run(
            python,
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", Self.pytestFile],
            environment: [
                "HERALD_WEB": "http://127.0.0.1:\(webPort)",
                "HERALD_H2C": "127.0.0.1:\(h2cPort)",
                "HERALD_JWT": jwt.lines.first ?? "",
            ],
            currentDirectory: directory,
            deadline: .seconds(120)
        )
        #expect(pytest.succeeded, "\(pytest)")
        #expect(pytest.stdout.contains("3 passed"), "\(pytest)")

        // Both put back what they changed: no fault rule left (a later push goes through), no notification deleted.
        let faults = try await ExternalProcess.run(herald, ["faults", "list", "--server", "http://127.0.0.1:\(webPort)"])
        #expect(faults.succeeded && faults.stdout == "no fault rule in force\n", "\(faults)")
        let after = try await Self.apnsIDs(webPort: webPort)
        #expect(before.isSubset(of: after), "deleted: \(before.subtracting(after))")
    }

    /// The `apns-id`s of the server's notifications (`GET /api/v1/notifications`).
    static func apnsIDs(webPort: Int) async throws -> Set<String> {
        let listed = try await ExternalProcess.run(
            "curl",
            ["--silent", "--show-error", "--fail", "--max-time", "30", "http://127.0.0.1:\(webPort)/api/v1/notifications?limit=10000"]
        )
        let object = try #require(HeraldExecutableInteropTests.jsonObject(listed.stdout), "\(listed)")
        return Set((object["notifications"] as? [[String: Any]] ?? []).compactMap { $0["apnsID"] as? String })
    }

    /// The page's `sh` block that ends with `echo "retry delivered"`.
    static func curlBlock() throws -> String {
        let page = try String(contentsOf: Interop.packageRoot.appendingPathComponent("docs/testing-from-any-language.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        guard let block = blocks.first(where: { $0.contains("echo \"retry delivered\"") }) else {
            throw InteropError("docs/testing-from-any-language.md has no sh block that ends with echo \"retry delivered\"")
        }
        return block
    }
}
