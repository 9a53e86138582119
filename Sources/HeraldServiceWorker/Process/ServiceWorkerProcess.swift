import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `node` running the scope: its input, its output as lines, its end.
///
/// Started with `posix_spawn`, not Foundation's `Process` (see `ExternalProcess` in the tests for why: on Linux it may
/// see a child's exit late). A thread of its own reads the output and reaps the child; input and output are sockets (the
/// input written with `MSG_NOSIGNAL`, so a dead worker never raises `SIGPIPE` in the host).
final class ServiceWorkerProcess: Sendable {
    /// What the process produced.
    enum Output: Sendable, Hashable {
        /// A line, or a line over the limit.
        case line(ServiceWorkerLineReader.Output)
        /// The process ended: `status` is its exit status, or the signal that ended it when `signaled`.
        case exited(status: Int32, signaled: Bool)
    }

    /// The child's process id.
    let pid: pid_t
    private let input: Int32
    private let outputs: OutputQueue

    /// Starts `executable` with `arguments`; its standard error goes to `standardErrorPath`.
    init(executable: String, arguments: [String], standardErrorPath: String, maximumLineLength: Int) throws(ServiceWorkerError) {
        var inputPair: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &inputPair) == 0 else {
            throw ServiceWorkerError(.exited, "cannot make the worker's input: \(String(cString: strerror(errno)))")
        }
        guard socketpair(AF_UNIX, kind, 0, &outputPipe) == 0 else {
            close(inputPair[0])
            close(inputPair[1])
            throw ServiceWorkerError(.exited, "cannot make the worker's output: \(String(cString: strerror(errno)))")
        }
        let spawned = Self.spawn(
            path: executable,
            arguments: [executable] + arguments,
            input: inputPair[1],
            output: outputPipe[1],
            standardErrorPath: standardErrorPath
        )
        close(inputPair[1])
        close(outputPipe[1])
        guard case .success(let pid) = spawned else {
            close(inputPair[0])
            close(outputPipe[0])
            if case .failure(let error) = spawned { throw error }
            throw ServiceWorkerError(.exited, "cannot start \(executable)")
        }
        self.pid = pid
        input = inputPair[0]
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        outputs = OutputQueue()
        let queue = outputs
        let output = outputPipe[0]
        let thread = Thread {
            Self.readLoop(output, pid: pid, into: queue, maximumLineLength: maximumLineLength)
        }
        thread.name = "herald-service-worker-\(pid)"
        thread.start()
    }

    deinit {
        terminate()
        close(input)
    }

    /// Writes one line to the worker; `false` when it cannot take it now (gone, or not reading its input).
    func sendLine(_ line: [UInt8]) -> Bool {
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                send(input, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if result > 0 {
                written += result
            } else if result == -1 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Ends the process at once (SIGKILL) unless it has ended.
    func terminate() {
        outputs.signalUnlessEnded(pid)
    }

    /// Whether the process has ended.
    var hasEnded: Bool { outputs.hasEnded }

    /// The next output, or `nil` at `deadline`. After the end, ``Output/exited(status:signaled:)`` again and again.
    func next(deadline: ContinuousClock.Instant) async -> Output? {
        if let output = outputs.take() { return output }
        return await withTaskGroup(of: Output?.self) { group in
            group.addTask { await self.outputs.wait() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // The other child may still have taken an output while it was being cancelled: it goes back first.
            for await late in group {
                if let late { outputs.putBack(late) }
            }
            return first
        }
    }

    private static func readLoop(_ descriptor: Int32, pid: pid_t, into queue: OutputQueue, maximumLineLength: Int) {
        var reader = ServiceWorkerLineReader(maximumLineLength: maximumLineLength)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                for line in reader.consume(buffer[0..<count]) { queue.deliver(.line(line)) }
            } else if count == -1 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        if let last = reader.finish() { queue.deliver(.line(last)) }
        close(descriptor)
        queue.reap(pid)
    }
}
