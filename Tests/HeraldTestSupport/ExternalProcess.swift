import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How an external program ended.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// The deadline passed and the program was killed.
    public var timedOut: Bool

    public var succeeded: Bool { status == 0 && !timedOut }

    /// Non-empty stdout lines.
    public var lines: [String] { stdout.split(whereSeparator: \.isNewline).map(String.init) }

    public var description: String {
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
public final class ExternalProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    public let commandLine: String
    private let outputDirectory: URL
    private var stdoutFile: URL { outputDirectory.appendingPathComponent("stdout") }
    private var stderrFile: URL { outputDirectory.appendingPathComponent("stderr") }
    /// The raw `waitpid` status once the child was reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` (a path, or a name looked up on `PATH`), in `currentDirectory` when given.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws {
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
    public var stdoutSoFar: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }
    /// What the program has written to standard error so far.
    public var stderrSoFar: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// Sends a signal to the program.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Whether the program is still running.
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Whether the program ended by `exit` (not by a signal); `false` while it runs.
    public var exitedNormally: Bool { reap(blocking: false).map { $0 & 0x7f == 0 } ?? false }

    /// The exit status, or the signal that ended the program (as Foundation's `terminationStatus`); 0 while it runs.
    public var terminationStatus: Int32 {
        guard let status = reap(blocking: false) else { return 0 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Waits until the program exits; at the deadline it is killed (SIGKILL) and the result says so.
    public func wait(deadline: Duration) async throws -> ProcessResult {
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
    public func waitForOutput(deadline: Duration, until match: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            let output = stdoutSoFar
            if output.split(whereSeparator: \.isNewline).contains(where: { match(String($0)) }) { return output }
            guard isRunning else {
                throw ExternalProcessError("\(commandLine) exited (\(terminationStatus)) before the expected output:\n\(output)\n\(stderrSoFar)")
            }
            guard clock.now < end else { throw ExternalProcessError("\(commandLine) did not print the expected output in time:\n\(output)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the program (SIGKILL) if it still runs and waits until it is gone.
    public func killAndWait() {
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
        else { throw ExternalProcessError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)") }
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
        guard result == 0 else { throw ExternalProcessError("cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Runs a program to completion (or to its deadline) and returns its result.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: URL? = nil,
        deadline: Duration = .seconds(30)
    ) async throws -> ProcessResult {
        let process = try ExternalProcess(executable, arguments, environment: environment, currentDirectory: currentDirectory)
        return try await process.wait(deadline: deadline)
    }

    /// Runs a program to completion (or to its deadline) from synchronous code: the calling thread polls `waitpid`.
    public static func runBlocking(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        deadline: Duration = .seconds(30)
    ) throws -> ProcessResult {
        let process = try ExternalProcess(executable, arguments, environment: environment)
        let clock = ContinuousClock()
        let end = clock.now + deadline
        var timedOut = false
        while process.isRunning {
            if clock.now >= end {
                timedOut = true
                process.killAndWait()
                break
            }
            usleep(5_000)
        }
        return ProcessResult(
            status: process.terminationStatus,
            stdout: process.stdoutSoFar,
            stderr: process.stderrSoFar,
            timedOut: timedOut
        )
    }

    private static func resolve(_ executable: String) throws -> String {
        if executable.contains("/") { return executable }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ExternalProcessError("\(executable) is not on PATH (bash .ci/run installs it)")
    }
}

/// A failure to start or drive an external program.
public struct ExternalProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
