import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors from the system (ports, permissions, missing files, no server), each one line naming what it concerns.
extension HeraldCLIErrorTests {
    @Test("serve on a port another serve listens on: one line naming the port and the option to change")
    func portInUse() async throws {
        try await HeraldWorkspace.with { workspace in
            let first = try await HeraldServeProcess.start(in: workspace)
            try await Self.withDirectory { directory in
                let second = try await ExternalProcess.run(
                    workspace.herald,
                    ["serve", "--data-dir", directory.path, "--tls-port", "-1", "--h2c-port", "\(first.cleartextPort)", "--link-port", "-1"],
                    deadline: .seconds(60)
                )
                Self.expectFailure(
                    second,
                    "cannot listen on 127.0.0.1:\(first.cleartextPort): address already in use "
                        + "(is another herald serve running? choose another port with --h2c-port)"
                )
            }
        }
    }

    @Test("serve on a data directory it cannot create or write: one line naming it")
    func unwritableDataDirectory() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            // Root writes anywhere: run as nobody then, in a directory that root owns and nobody cannot write.
            let asNobody = getuid() == 0
            try FileManager.default.setAttributes([.posixPermissions: asNobody ? 0o755 : 0o555], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
            func serve(_ data: URL) async throws -> ProcessResult {
                let arguments = ["serve", "--data-dir", data.path, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0"]
                if asNobody {
                    return try await ExternalProcess.run(
                        "setpriv",
                        ["--reuid=65534", "--regid=65534", "--clear-groups", herald] + arguments,
                        deadline: .seconds(60)
                    )
                }
                return try await ExternalProcess.run(herald, arguments, deadline: .seconds(60))
            }
            let missing = directory.appendingPathComponent("herald-data")
            Self.expectFailure(
                try await serve(missing),
                "cannot create the data directory \(missing.path): permission denied (choose another with --data-dir)"
            )
            Self.expectFailure(
                try await serve(directory),
                "cannot write to the data directory \(directory.path): permission denied (fix its permissions, or choose another with --data-dir)"
            )
        }
    }

    @Test("send, device and keys with a file that is not there: one line saying why, and nothing made")
    func missingPayloadFile() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            let sent = try await ExternalProcess.run(
                herald,
                ["send", "missing.json", "--token", String(repeating: "ab", count: 32), "--topic", "com.example.app"],
                currentDirectory: directory
            )
            Self.expectFailure(sent, "cannot read missing.json: no such file or directory")
            let device = try await ExternalProcess.run(
                herald,
                ["device", "--data-dir", directory.path, "--manifest", "missing.json"],
                currentDirectory: directory
            )
            Self.expectFailure(device, "cannot read missing.json: no such file or directory")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("devices").path), "no device made")
            let added = try await ExternalProcess.run(
                herald,
                ["keys", "add", "--data-dir", directory.path, "--p8", "missing.p8", "--key-id", "ABCDEFGHIJ", "--team-id", "TEAM123456"],
                currentDirectory: directory
            )
            Self.expectFailure(added, "cannot read missing.p8: no such file or directory")
        }
    }

    @Test("keys and certs: a bad team id and an output path under a file, each one line in words")
    func credentials() async throws {
        try await HeraldWorkspace.with { workspace in
            let badTeam = try await workspace.cli(["keys", "generate", "--team-id", "T1"])
            Self.expectFailure(badTeam, "T1: not a team id (10 letters or digits)")
            let file = workspace.data.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let underFile = file.appendingPathComponent("c.pem").path
            let issued = try await workspace.cli(["certs", "issue", "--topic", "com.example.app", "--cert", underFile, "--key", underFile + ".key"])
            Self.expectFailure(issued, "cannot write \(underFile): not a directory")
            let generated = try await workspace.cli(["keys", "generate", "--team-id", "TEAM123456", "--out", underFile])
            Self.expectFailure(generated, "cannot write \(underFile): not a directory")
        }
    }

    @Test("a command line ArgumentParser cannot parse exits 64 (EX_USAGE), as docs/herald-send.md says")
    func usageError() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let result = try await ExternalProcess.run(herald, ["send", "--no-such-option"])
        #expect(result.status == 64 && !result.timedOut, "\(result)")
        #expect(result.stderr.hasPrefix("Error: Unknown option '--no-such-option'"), "\(result)")
    }

    @Test("device with no server: one hint naming the URL, not an error per retry; it keeps trying until stopped")
    func deviceWithoutServer() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            let port = try #require(Interop.freePorts(1).first)
            let url = "ws://127.0.0.1:\(port)/device-link"
            let device = try ExternalProcess(
                herald,
                ["device", "--data-dir", directory.path, "--server", url, "--app", "com.example.app", "--max-backoff", "0.2"]
            )
            defer { device.killAndWait() }
            let hint =
                "herald device: cannot reach \(url) (is `herald serve` running? --server takes the devices: URL of its banner); retrying until it answers"
            try await eventually("the hint", within: .seconds(30)) { device.stderrSoFar.contains(hint) ? true : nil }
            // Several retries later (0.2 s apart), still one hint and nothing else about the link.
            try await expectNothing(for: .seconds(2), "herald device stopped, or wrote more than the hint") {
                !device.isRunning || device.stderrSoFar.split(separator: "\n").count > 2
            }
            let lines = device.stderrSoFar.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0 == hint }.count == 1, "\(lines)")
            #expect(lines.count == 2 && lines[0].hasPrefix("added device 'my-phone'"), "\(lines)")
            #expect(device.stdoutSoFar.isEmpty)
        }
    }
}
