import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// docs/live-activities.md's command-line walkthrough, run as written: a `herald serve` and a `herald device` that keep
/// running, each other `sh` block with bash in the same directory, its standard output against the block's `#` lines,
/// then the device's lines the page shows after it. Only the ports differ (free ones here): a `herald` first on `PATH`
/// adds `--server` (or serve's port options) and runs the real one.
@Suite("Interop: the Live Activity walkthrough of docs/live-activities.md, as written", .tier(.process))
struct LiveActivityWalkthroughTests {
    /// One block of the walkthrough.
    enum Step: Equatable {
        /// A terminal that keeps running: `herald serve` or `herald device …`, as its arguments.
        case terminal([String])
        /// A block bash runs to its end, and the patterns its standard output's lines match, one each.
        case script(String, output: [String])
        /// Lines the running device prints after the step before, in this order among its others.
        case device([String])
    }

    @Test("serve, a device with a manifest, push-to-start, update, end and a broadcast: every command and device line as the page shows")
    func walkthrough() async throws {
        let page = try String(contentsOf: Interop.packageRoot.appendingPathComponent("docs/live-activities.md"), encoding: .utf8)
        let steps = try Self.steps(of: page)
        let scripts = steps.compactMap { step -> String? in if case .script(let text, _) = step { text } else { nil } }.joined()
        for part in ["--event start", "--input-push-token", "--event update", "--event end", "channels create", "--broadcast"] {
            #expect(scripts.contains(part), "the walkthrough has no \(part)")
        }
        #expect(steps.first == .terminal(["serve"]), "\(steps)")

        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-walkthrough-\(UUID().uuidString)")
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ports = try Interop.freePorts(3)
        let wrapper = bin.appendingPathComponent("herald")
        let script = Self.wrapper(herald: herald, tlsPort: ports[0], h2cPort: ports[1], webPort: ports[2])
        try script.write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        let environment = ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]

        var terminals: [ExternalProcess] = []
        defer { for terminal in terminals { terminal.killAndWait() } }
        var device: ExternalProcess?
        var deviceLinesSeen = 0
        for step in steps {
            switch step {
            case .terminal(let arguments):
                let terminal = try ExternalProcess(wrapper.path, arguments, environment: environment, currentDirectory: directory)
                terminals.append(terminal)
                if arguments.first == "serve" {
                    _ = try await terminal.waitForOutput(deadline: .seconds(30)) { $0 == "herald: ready" }
                } else {
                    device = terminal
                    deviceLinesSeen = 0
                }
            case .script(let text, let output):
                let result = try await ExternalProcess.run(
                    "bash",
                    ["-euo", "pipefail", "-c", text],
                    environment: environment,
                    currentDirectory: directory,
                    deadline: .seconds(60)
                )
                try #require(result.succeeded, "\(text)\n\(result)")
                let matched = result.lines.count == output.count && zip(result.lines, output).allSatisfy { Self.matches($0, $1) }
                try #require(matched, "\(text)\nexpected:\n\(output.joined(separator: "\n"))\n\(result)")
            case .device(let expected):
                let running = try #require(device, "device lines before a herald device")
                deviceLinesSeen = try await Self.waitForLines(expected, of: running, after: deviceLinesSeen)
            }
        }
    }

    @Test("the page's patterns: … stands for any text, the rest is exact")
    func patterns() {
        #expect(Self.matches("200  apns-id 01a2  apns-unique-id 10  4.1 ms", "200  apns-id …"))
        #expect(!Self.matches("400 BadDeviceToken  apns-id 01a2", "200  apns-id …"))
        #expect(Self.matches("  displayed 01 activities={…} activityEvents=updated priority=10", "  displayed … activityEvents=updated …"))
        #expect(!Self.matches("  displayed 01 activityEvents=updated,state-ended priority=10", "  displayed … activityEvents=updated …"))
        #expect(Self.matches("token a sandbox 5f (retired)", "token a sandbox … (retired)"))
        #expect(!Self.matches("token a sandbox 5f", "token a sandbox … (retired)"))
        #expect(Self.matches("herald serve", "herald serve") && !Self.matches("herald serve ", "herald serve"))
    }

    /// The walkthrough's blocks, from its section to the next `## `.
    static func steps(of page: String) throws -> [Step] {
        guard let start = page.range(of: "\n## From the command line\n") else { throw InteropError("no walkthrough section") }
        let section = page[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var steps: [Step] = []
        var block: (language: String, lines: [String])?
        for line in section.components(separatedBy: "\n") {
            if let open = block {
                guard line == "```" else {
                    block?.lines.append(line)
                    continue
                }
                block = nil
                let text = open.lines.joined(separator: "\n")
                switch open.language {
                case "sh" where open.lines.count == 1 && (text.hasPrefix("herald serve") || text.hasPrefix("herald device")):
                    guard !text.contains("'"), !text.contains("\""), !text.contains("#") else {
                        throw InteropError("a terminal block is split at spaces; it cannot have quotes or comments: \(text)")
                    }
                    steps.append(.terminal(text.split(separator: " ").dropFirst().map(String.init)))
                case "sh":
                    steps.append(.script(text, output: open.lines.filter { $0.hasPrefix("# ") }.map { String($0.dropFirst(2)) }))
                case "text":
                    steps.append(.device(open.lines))
                default:
                    throw InteropError("a ```\(open.language) block in the walkthrough")
                }
            } else if line.hasPrefix("```") {
                block = (String(line.dropFirst(3)), [])
            }
        }
        return steps
    }

    /// Whether `line` is `pattern` with each `…` standing for any text (none included).
    static func matches(_ line: String, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard let first = pieces.first, let last = pieces.last, pieces.count > 1 else { return line == pattern }
        guard line.hasPrefix(first) else { return false }
        var rest = line.dropFirst(first.count)
        for piece in pieces.dropFirst().dropLast() {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(last)
    }

    /// Waits until the device's lines after the first `seen` hold `expected` in order; returns how many lines that
    /// takes.
    static func waitForLines(_ expected: [String], of device: ExternalProcess, after seen: Int) async throws -> Int {
        let what = "herald device to print, in order:\n\(expected.joined(separator: "\n"))"
        return try await eventually(what, within: .seconds(30), every: .milliseconds(20), state: "it printed:\n\(device.stdoutSoFar)") {
            let output = device.stdoutSoFar
            let complete = output.lastIndex(of: "\n").map { String(output[...$0]) } ?? ""
            let lines = complete.components(separatedBy: "\n").dropLast()
            var next = expected.startIndex
            var used = seen
            for (index, line) in lines.enumerated().dropFirst(seen) where next < expected.endIndex && matches(line, expected[next]) {
                next += 1
                used = index + 1
            }
            if next == expected.endIndex { return used }
            guard device.isRunning else { throw InteropError("herald device exited before it printed \(what)\nit printed:\n\(output)") }
            return nil
        }
    }

    /// A `herald` that runs the real one with this test's ports: serve's port options; `--server` for the device,
    /// `send` and `channels`.
    static func wrapper(herald: String, tlsPort: Int, h2cPort: Int, webPort: Int) -> String {
        """
        #!/bin/sh
        case "$1" in
            serve) exec '\(herald)' "$@" --tls-port \(tlsPort) --h2c-port \(h2cPort) --link-port \(webPort) --log-level warning ;;
            device) exec '\(herald)' "$@" --server ws://127.0.0.1:\(webPort)/device-link ;;
            send|channels) exec '\(herald)' "$@" --server https://localhost:\(tlsPort) ;;
            *) exec '\(herald)' "$@" ;;
        esac

        """
    }
}
