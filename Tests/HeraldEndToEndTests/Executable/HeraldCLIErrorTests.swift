import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tier 3 with real processes: each way a newcomer's `herald` command can fail, as one line on standard error
/// (`herald: error: …`), nothing on standard output, and exit status 1.
@Suite("Interop: the CLI's one-line errors", .serialized, .tier(.process))
struct HeraldCLIErrorTests {
    /// A temporary directory for one test, removed at the end.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// Expects exit status 1 and exactly `herald: error: <message>` on standard error.
    static func expectFailure(_ result: ProcessResult, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1 && !result.timedOut, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr == "herald: error: \(message)\n", "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
    }

    @Test("serve with a port out of range: one line naming the option, exit 1, nothing listening and no data directory")
    func portOutOfRange() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            let data = directory.appendingPathComponent("herald-data")
            for (option, port) in [("--tls-port", "99999"), ("--tls-port", "-5"), ("--link-port", "65536")] {
                let result = try await ExternalProcess.run(herald, ["serve", "--data-dir", data.path, option, port], deadline: .seconds(30))
                Self.expectFailure(result, "\(option) must be a port from 1 to 65535, 0 for any free port, or -1 to turn it off; not \(port)")
            }
            #expect(!FileManager.default.fileExists(atPath: data.path))
        }
    }

    @Test("trace, device and tokens in a directory without herald-data: one line naming it, and nothing created")
    func missingDataDirectory() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            let here =
                "no Herald data directory ./herald-data in \(directory.path) (run `herald serve` here first, or give --data-dir or HERALD_DATA_DIR)"
            let commands = [
                ["trace", "0d6b2b5e-5b8c-4a36-9d4e-8f0b3c2a1e77"],
                ["device", "--app", "com.example.app"],
                ["tokens", "register", "--topic", "com.example.app"],
                ["devices", "list"],
                ["keys", "token"],
                ["certs", "issue", "--topic", "com.example.app", "--cert", "c.pem", "--key", "k.pem"],
            ]
            for arguments in commands {
                let result = try await ExternalProcess.run(herald, arguments, environment: ["HERALD_DATA_DIR": ""], currentDirectory: directory)
                Self.expectFailure(result, here)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

            let elsewhere = directory.appendingPathComponent("elsewhere").path
            let named = try await ExternalProcess.run(herald, ["trace", "--data-dir", elsewhere, "0d6b2b5e-5b8c-4a36-9d4e-8f0b3c2a1e77"])
            Self.expectFailure(named, "no Herald data directory at \(elsewhere) (start `herald serve --data-dir \(elsewhere)` first)")
            #expect(!FileManager.default.fileExists(atPath: elsewhere))

            // HERALD_DATA_DIR names an existing data directory: the command runs there (and finds no such notification).
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
            let fromVariable = try await ExternalProcess.run(
                herald,
                ["trace", "0d6b2b5e-5b8c-4a36-9d4e-8f0b3c2a1e77"],
                environment: ["HERALD_DATA_DIR": elsewhere],
                currentDirectory: directory
            )
            Self.expectFailure(fromVariable, "no notification with apns-id 0d6b2b5e-5b8c-4a36-9d4e-8f0b3c2a1e77")
            #expect(FileManager.default.fileExists(atPath: elsewhere + "/herald.sqlite"))
        }
    }

    @Test("a second serve on the same data directory exits at once, naming the pid of the first")
    func secondServe() async throws {
        try await HeraldWorkspace.with { workspace in
            let first = try await HeraldServeProcess.start(in: workspace)
            let second = try await ExternalProcess.run(
                workspace.herald,
                ["serve", "--data-dir", workspace.data.path, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0"],
                deadline: .seconds(60)
            )
            let pid = first.process.pid
            Self.expectFailure(
                second,
                "another herald serve (pid \(pid)) is using the data directory \(workspace.data.path): stop it first, or give this one its own --data-dir"
            )
            #expect(first.process.isRunning)
            // The lock goes with the process, however it ends: after kill -9 a new serve starts.
            first.crash()
            let restarted = try await HeraldServeProcess.start(in: workspace)
            #expect(restarted.process.isRunning)
        }
    }

    @Test("device made in another data directory than the server's: the refusal names both and what to give")
    func deviceOfAnotherDataDirectory() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            try await Self.withDirectory { directory in
                let device = try await ExternalProcess.run(
                    workspace.herald,
                    ["device", "--data-dir", directory.path, "--server", server.deviceLinkURL, "--app", "com.example.app"],
                    deadline: .seconds(60)
                )
                #expect(device.status == 1 && !device.timedOut, "\(device)")
                let lines = device.stderr.split(separator: "\n").map(String.init)
                #expect(lines.first?.hasPrefix("added device 'my-phone'") == true, "\(device)")
                #expect(
                    lines.last
                        == "herald: error: the server at \(server.deviceLinkURL) refused the device: unknown device or wrong secret "
                        + "('my-phone' is a device of the data directory \(directory.path): is it the server's? give --data-dir)",
                    "\(device)"
                )
            }
        }
    }
}
