import Foundation
import HeraldTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A newcomer's slips, each answered in one line that says what to do (issue 37, item 15).
extension HeraldCLIErrorTests {
    @Test("a misspelt command gets the nearest commands, at every level; exit 64 like any command line that cannot be parsed")
    func misspeltCommand() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let cases: [([String], String)] = [
            (["sned"], "Error: Unknown command 'sned'. Did you mean 'send'? (see 'herald --help')"),
            (["dev"], "Error: Unknown command 'dev'. Did you mean 'devices' or 'device'? (see 'herald --help')"),
            (["devices", "lst"], "Error: Unknown command 'lst'. Did you mean 'list'? (see 'herald devices --help')"),
            (["xyzzy", "--topic", "a"], "Error: Unknown command 'xyzzy' (see 'herald --help' for the commands)"),
        ]
        for (arguments, line) in cases {
            let result = try await ExternalProcess.run(herald, arguments)
            #expect(result.status == 64 && !result.timedOut, "\(arguments): \(result)")
            #expect(result.stderr == line + "\n", "\(arguments): \(result)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result)")
        }
        // A command spelt right still runs.
        let version = try await ExternalProcess.run(herald, ["--version"])
        #expect(version.succeeded && version.lines.count == 1, "\(version)")
    }

    @Test("a data directory under a file, a payload file that is a directory: one line saying why")
    func pathsThatAreNotWhatTheySeem() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let data = file.appendingPathComponent("herald-data")
            let serve = try await ExternalProcess.run(
                herald,
                ["serve", "--data-dir", data.path, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0"],
                deadline: .seconds(60)
            )
            Self.expectFailure(
                serve,
                "cannot create the data directory \(data.path): \(file.path) is a file, not a directory (choose another with --data-dir)"
            )

            try FileManager.default.createDirectory(at: directory.appendingPathComponent("payloads"), withIntermediateDirectories: false)
            let token = String(repeating: "ab", count: 32)
            let sent = try await ExternalProcess.run(
                herald,
                ["send", "--payload-file", "payloads", "--token", token, "--topic", "com.example.app"],
                currentDirectory: directory
            )
            Self.expectFailure(sent, "cannot read payloads: is a directory (give a file)")
            let faults = try await ExternalProcess.run(herald, ["faults", "add", "@payloads"], currentDirectory: directory)
            Self.expectFailure(faults, "cannot read payloads: is a directory (give a file)")
        }
    }

    @Test("a PostgreSQL database that does not answer: the host, the port and why, for serve and the other commands")
    func unreachableDatabase() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let port = try #require(Interop.freePorts(1).first)
        let url = "postgres://herald:secret@127.0.0.1:\(port)/herald"
        let line =
            "cannot reach the database at 127.0.0.1:\(port): connection refused "
            + "(is PostgreSQL running there? check --database or HERALD_DATABASE_URL)"
        try await Self.withDirectory { directory in
            let listed = try await ExternalProcess.run(herald, ["devices", "list", "--database", url], currentDirectory: directory)
            Self.expectFailure(listed, line)
            let served = try await ExternalProcess.run(
                herald,
                ["serve", "--data-dir", directory.appendingPathComponent("data").path, "--database", url, "--tls-port", "-1", "--h2c-port", "0"],
                deadline: .seconds(60)
            )
            Self.expectFailure(served, line)
        }
    }

    @Test("certs issue writes the key send reads under the same name, --cert-key (--key still works, hidden)")
    func certificateKeyName() async throws {
        try await HeraldWorkspace.with { workspace in
            let directory = workspace.data
            let cert = directory.appendingPathComponent("c.pem").path
            let key = directory.appendingPathComponent("c-key.pem").path
            let issued = try await workspace.cli(["certs", "issue", "--topic", "com.example.app", "--cert", cert, "--cert-key", key])
            #expect(issued.succeeded && issued.lines == ["issued a certificate for com.example.app: \(cert), \(key)"], "\(issued)")
            #expect(FileManager.default.fileExists(atPath: key))
            let old = try await workspace.cli(["certs", "issue", "--topic", "com.example.app", "--cert", cert + "2", "--key", key + "2"])
            #expect(old.succeeded && FileManager.default.fileExists(atPath: key + "2"), "\(old)")
            let both = try await workspace.cli(["certs", "issue", "--topic", "t", "--cert", cert, "--cert-key", key, "--key", key])
            Self.expectFailure(both, "give --cert-key only (--key is its old name)")
            let neither = try await workspace.cli(["certs", "issue", "--topic", "t", "--cert", cert])
            Self.expectFailure(neither, "give --cert-key: where to write the certificate's private key (herald send --cert-key reads it)")
            let help = try await ExternalProcess.run(workspace.herald, ["certs", "issue", "--help"])
            #expect(help.stdout.contains("--cert-key <cert-key>") && !help.stdout.contains("--key <key>"), "\(help)")
        }
    }

    @Test("help: faults names its default once; send's kept key is the one herald serve made")
    func helpTexts() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        for arguments in [["faults", "list", "--help"], ["faults", "add", "--help"], ["trace", "--help"]] {
            let help = try await ExternalProcess.run(herald, arguments)
            let flattened = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flattened.components(separatedBy: "(default: http://127.0.0.1:2196)").count == 2, "\(arguments): \(help)")
        }
        let send = try await ExternalProcess.run(herald, ["send", "--help"])
        let flattened = send.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(!flattened.contains("herald keys generate"), "\(send)")
        #expect(flattened.contains("the one key in <data-dir>/keys (the development key `herald serve` made"), "\(send)")
    }

    @Test("Ctrl-C during send --repeat: what was sent is summed up, exit 130")
    func interruptedLoad() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let load = try workspace.start([
                "send", "--data-dir", workspace.data.path, "--server", server.providerURL, "--token", String(repeating: "ab", count: 32),
                "--topic", HeraldWorkspace.topic, "--alert", "hi", "--repeat", "100000", "--rate", "50",
            ])
            // The progress line (a line a second: standard error is not a terminal) says it is under way.
            try await eventually("the load's progress", within: .seconds(60)) { load.stderrSoFar.contains(" sent, ") ? true : nil }
            load.signal(SIGINT)
            let result = try await load.wait(deadline: .seconds(60))
            #expect(result.status == 130 && !result.timedOut, "\(result)")
            let lines = result.lines
            let after = try #require(lines.first?.split(separator: " ").dropFirst(3).first.flatMap { Int($0) }, "\(result)")
            #expect(lines.first == "interrupted (Ctrl-C) after \(after) of 100000: the summary of those", "\(result)")
            #expect(after > 0 && after < 100_000, "\(result)")
            #expect(lines.dropFirst().first?.hasPrefix("sent \(after), accepted 0, rejected \(after) in ") == true, "\(result)")
            #expect(lines.dropFirst(2).first == "  BadDeviceToken: \(after)", "\(result)")
        }
    }

    @Test("herald trace prints a device's displayed report as readable members, not one raw JSON object")
    func readableTrace() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: try await workspace.addDevice("phone"))
            let token = try await device.token(for: HeraldWorkspace.topic)
            let apnsID = try await server.send(token: token, ["--alert", "Hello from Herald"])
            _ = try await device.waitForReport("displayed", about: apnsID)
            let traced = try await eventually("the displayed event in the trace", within: .seconds(30)) {
                let traced = try await workspace.cli(["trace", apnsID, "--server", "http://127.0.0.1:\(server.linkPort)"])
                return traced.lines.contains { $0.contains("  displayed ") } ? traced : nil
            }
            let displayed = try #require(traced.lines.first { $0.contains("  displayed ") })
            #expect(displayed.contains(#"  displayed     "#) && displayed.contains(#", body "Hello from Herald", "#), "\(traced)")
            #expect(displayed.contains(", presentation [list, banner], "), "\(traced)")
            #expect(!displayed.contains("{\"") && !displayed.contains("null") && !displayed.contains(#""""#), "\(traced)")
        }
    }
}
