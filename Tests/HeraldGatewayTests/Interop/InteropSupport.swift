import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How an external program ended.
struct ProcessResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The deadline passed and the program was killed.
    var timedOut: Bool

    var succeeded: Bool { status == 0 && !timedOut }

    /// Non-empty stdout lines.
    var lines: [String] { stdout.split(whereSeparator: \.isNewline).map(String.init) }

    var description: String {
        "exit \(status)\(timedOut ? " (killed at the deadline)" : "")\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
    }
}

/// A program started with `posix_spawn`, its output going to files (no pipe can fill up and stall it).
///
/// Why not Foundation's `Process`: on Linux it learns that a child exited when a socket the child inherited is
/// closed, and a program another test starts at the same moment can inherit that socket too — the child then looks
/// alive until the other program ends (swift-corelibs-foundation issue 4795; a `herald keys token` that had printed
/// its token and exited 0 was "killed at the deadline" this way in CI). Here the child is watched with `waitpid`, and
/// it inherits no descriptor but its standard input, output and error.
final class ExternalProcess: @unchecked Sendable {
    /// The child's process id.
    let pid: pid_t
    let commandLine: String
    private let outputDirectory: URL
    private var stdoutFile: URL { outputDirectory.appendingPathComponent("stdout") }
    private var stderrFile: URL { outputDirectory.appendingPathComponent("stderr") }
    /// The raw `waitpid` status once the child was reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` (a path, or a name looked up on `PATH`), in `currentDirectory` when given.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws {
        let path = try Self.resolve(executable)
        commandLine = ([path] + arguments).joined(separator: " ")
        outputDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-interop-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        let stdoutPath = outputDirectory.appendingPathComponent("stdout").path
        let stderrPath = outputDirectory.appendingPathComponent("stderr").path
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        pid = try Self.spawn(
            path: path,
            arguments: [path] + arguments,
            environment: merged.map { "\($0.key)=\($0.value)" },
            stdout: stdoutPath,
            stderr: stderrPath,
            currentDirectory: currentDirectory?.path
        )
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
        try? FileManager.default.removeItem(at: outputDirectory)
    }

    /// What the program has written to standard output so far.
    var stdoutSoFar: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }
    /// What the program has written to standard error so far.
    var stderrSoFar: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// Sends a signal to the program.
    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Whether the program is still running.
    var isRunning: Bool { reap(blocking: false) == nil }

    /// Whether the program ended by `exit` (not by a signal); `false` while it runs.
    var exitedNormally: Bool { reap(blocking: false).map { $0 & 0x7f == 0 } ?? false }

    /// The exit status, or the signal that ended the program (as Foundation's `terminationStatus`); 0 while it runs.
    var terminationStatus: Int32 {
        guard let status = reap(blocking: false) else { return 0 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Waits until the program exits; at the deadline it is killed (SIGKILL) and the result says so.
    func wait(deadline: Duration) async throws -> ProcessResult {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        var timedOut = false
        while isRunning {
            if clock.now >= end {
                timedOut = true
                kill(pid, SIGKILL)
                _ = reap(blocking: true)
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return ProcessResult(status: terminationStatus, stdout: stdoutSoFar, stderr: stderrSoFar, timedOut: timedOut)
    }

    /// Waits until standard output holds a line that `match` accepts, or throws when the program exits first or
    /// the deadline passes.
    func waitForOutput(deadline: Duration, until match: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            let output = stdoutSoFar
            if output.split(whereSeparator: \.isNewline).contains(where: { match(String($0)) }) { return output }
            guard isRunning else {
                throw InteropError("\(commandLine) exited (\(terminationStatus)) before the expected output:\n\(output)\n\(stderrSoFar)")
            }
            guard clock.now < end else { throw InteropError("\(commandLine) did not print the expected output in time:\n\(output)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the program (SIGKILL) if it still runs and waits until it is gone.
    func killAndWait() {
        guard isRunning else { return }
        kill(pid, SIGKILL)
        _ = reap(blocking: true)
    }

    /// The raw wait status once the child ended (reaping it the first time), `nil` while it runs.
    private func reap(blocking: Bool) -> Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            while true {
                let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
                if result == pid {
                    reaped = status
                    return status
                }
                if result == -1 && errno == EINTR { continue }
                // 0: still running. -1 (ECHILD): never ours to wait for; treated as gone with status 127.
                if result == -1 {
                    reaped = 127 << 8
                    return reaped
                }
                return nil
            }
        }
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addchdir_np` and `…_addclosefrom_np` (2.29 and 2.34), which Swift's Glibc
    /// module does not declare.
    nonisolated(unsafe) private static let glibc = dlopen(nil, RTLD_NOW)

    private static func spawn(
        path: String,
        arguments: [String],
        environment: [String],
        stdout: String,
        stderr: String,
        currentDirectory: String?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_TRUNC, 0o644)
        guard let closeFrom = dlsym(glibc, "posix_spawn_file_actions_addclosefrom_np"),
            let chdir = dlsym(glibc, "posix_spawn_file_actions_addchdir_np")
        else { throw InteropError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)") }
        _ = unsafeBitCast(closeFrom, to: AddCloseFrom.self)(&actions, 3)
        if let currentDirectory {
            _ = unsafeBitCast(chdir, to: AddChdir.self)(&actions, currentDirectory)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test process may ignore or block signals (SIGPIPE); the child starts with the defaults.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw InteropError("cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Runs a program to completion (or to its deadline) and returns its result.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: URL? = nil,
        deadline: Duration = .seconds(30)
    ) async throws -> ProcessResult {
        let process = try ExternalProcess(executable, arguments, environment: environment, currentDirectory: currentDirectory)
        return try await process.wait(deadline: deadline)
    }

    private static func resolve(_ executable: String) throws -> String {
        if executable.contains("/") { return executable }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw InteropError("\(executable) is not on PATH (bash .ci/run installs it)")
    }
}

/// A failure to set up or drive an external program.
struct InteropError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where the package is, and the external programs the interop tests drive.
enum Interop {
    /// The package root, found from this file's path (`<root>/Tests/HeraldGatewayTests/Interop/InteropSupport.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The aioapns CLI (`Tests/Interop/aioapns_client.py`).
    static var aioapnsScript: String { packageRoot.appendingPathComponent("Tests/Interop/aioapns_client.py").path }

    /// The versions `.ci/run` installs; keep the two lists equal.
    static let aioapnsPins = ["aioapns==4.0", "h2==4.4.1", "PyJWT==2.15.1", "pyOpenSSL==26.4.0", "cryptography==50.0.2"]
    /// The selenium the console's browser test drives Chromium with (`.ci/run`'s `SELENIUM_PIN`; keep them equal).
    static let seleniumPin = "selenium==4.51.0"
    /// The pytest that runs `Examples/TestingFromAnyLanguage` (`.ci/run`'s `PYTEST_PIN`; keep them equal).
    static let pytestPin = "pytest==9.2.0"

    /// The Python that has aioapns, selenium and pytest: `HERALD_INTEROP_PYTHON` (set by `.ci/run`), else the package's
    /// `.build/interop-venv`, created and filled on first use (under a lock, once per test process).
    static func python() async throws -> String {
        try await pythonTask.value
    }

    private static let pythonTask = Task<String, any Error> {
        if let configured = ProcessInfo.processInfo.environment["HERALD_INTEROP_PYTHON"], !configured.isEmpty {
            return configured
        }
        let venv = packageRoot.appendingPathComponent(".build/interop-venv")
        let python = venv.appendingPathComponent("bin/python").path
        // Two `swift test` runs of this package (say, with different scratch paths) may race to create it: flock serialises them.
        let script = """
            set -eu
            mkdir -p "$(dirname "$VENV")"
            exec 9>"$VENV.lock"
            flock 9
            if ! "$VENV/bin/python" -c "$CHECK" >/dev/null 2>&1; then
                rm -rf "$VENV"
                python3 -m venv "$VENV"
                "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
            fi
            """
        let result = try await ExternalProcess.run(
            "bash",
            ["-c", script, "make-venv"] + aioapnsPins + [seleniumPin, pytestPin],
            environment: [
                "VENV": venv.path,
                "CHECK": "import importlib.metadata as m, aioapns, selenium, pytest; assert m.version('aioapns') == '4.0'; "
                    + "assert m.version('selenium') == '\(seleniumPin.dropFirst("selenium==".count))'; "
                    + "assert m.version('pytest') == '\(pytestPin.dropFirst("pytest==".count))'",
            ],
            deadline: .seconds(600)
        )
        guard result.succeeded else { throw InteropError("could not create \(venv.path) with aioapns and selenium:\n\(result)") }
        return python
    }

    /// Runs `Tests/Interop/aioapns_client.py` and decodes its JSON lines.
    static func aioapns(_ arguments: [String]) async throws -> (result: ProcessResult, answers: [AioapnsAnswer]) {
        let python = try await python()
        let result = try await ExternalProcess.run(python, [aioapnsScript] + arguments, deadline: .seconds(60))
        let answers = try result.lines.map { line in
            do {
                return try JSONDecoder().decode(AioapnsAnswer.self, from: Data(line.utf8))
            } catch {
                throw InteropError("aioapns_client.py printed a line that is not an answer: \(line)\n\(result)")
            }
        }
        return (result, answers)
    }
}

/// One line of `aioapns_client.py`'s output.
struct AioapnsAnswer: Decodable, Sendable {
    var token: String
    var status: Int
    var reason: String?
    var apnsID: String?
    var timestamp: Int64?
    var connection: Int?

    enum CodingKeys: String, CodingKey {
        case token, status, reason, timestamp, connection
        case apnsID = "apns_id"
    }
}

/// One HTTP answer as curl printed it with `-i`.
struct CurlAnswer: Sendable, CustomStringConvertible {
    /// `HTTP/2` or `HTTP/1.1`.
    var version: String
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: String

    var description: String { "\(version) \(status) \(headers) \(body)" }

    /// The error body `{"reason":…,"timestamp":…}`; decoding fails on a `timestamp` that is not an integer.
    private struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?
    }

    private var errorBody: ErrorBody? { try? JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8)) }

    var reason: String? { errorBody?.reason }

    /// The 410 `timestamp`, only when it is a JSON integer (not a string).
    var timestamp: Int64? { errorBody?.timestamp }

    /// Parses `curl -i` output: status line, headers, blank line, body.
    init(parsing output: String) throws {
        let normalized = output.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = normalized.range(of: "\n\n") else { throw InteropError("no header block in curl output:\n\(output)") }
        let head = normalized[..<split.lowerBound].split(separator: "\n").map(String.init)
        body = String(normalized[split.upperBound...])
        guard let statusLine = head.first else { throw InteropError("no status line in curl output:\n\(output)") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw InteropError("bad status line '\(statusLine)'") }
        version = String(parts[0])
        self.status = status
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
    }
}

/// Runs `body` with a live gateway and stops it afterwards, whether `body` throws or not.
func withGateway<T>(_ body: (GatewayFixture) async throws -> T) async throws -> T {
    let fixture = try await GatewayFixture.start()
    do {
        let value = try await body(fixture)
        await fixture.stop()
        return value
    } catch {
        await fixture.stop()
        throw error
    }
}

/// A lowercase canonical UUID, the form Herald generates for `apns-id`.
func isUUID(_ text: String?) -> Bool {
    guard let text else { return false }
    return UUID(uuidString: text) != nil
}

/// A well-formed token no gateway has registered.
let unknownDeviceToken = String(repeating: "ab", count: 32)
