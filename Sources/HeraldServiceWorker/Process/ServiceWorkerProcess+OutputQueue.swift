import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServiceWorkerProcess {
    /// The outputs the reading thread delivered and the host has not taken yet, and the host's wait for the next one.
    ///
    /// The child is reaped here too, under the same lock as ``signalUnlessEnded(_:)``: a signal never reaches a process
    /// id that the system may already have given to another program.
    final class OutputQueue: Sendable {
        private struct State {
            var outputs: [Output] = []
            var waiter: CheckedContinuation<Output?, Never>?
            var ended: Output?
        }

        private let state = Mutex(State())

        /// Hands an output to the waiting host, or keeps it.
        func deliver(_ output: Output) {
            let waiter = state.withLock { state -> CheckedContinuation<Output?, Never>? in
                guard let waiter = state.waiter else {
                    state.outputs.append(output)
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: output)
        }

        /// The oldest output kept; once the outputs are taken, the end (if it came) over and over.
        func take() -> Output? {
            state.withLock { state in
                state.outputs.isEmpty ? state.ended : state.outputs.removeFirst()
            }
        }

        /// Puts an output back in front (one a cancelled wait had taken).
        func putBack(_ output: Output) {
            state.withLock { state in
                if case .exited = output { return }
                state.outputs.insert(output, at: 0)
            }
        }

        /// The next output; `nil` when the waiting task is cancelled.
        func wait() async -> Output? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Output?, Never>) in
                    let ready = state.withLock { state -> Output?? in
                        if !state.outputs.isEmpty { return .some(state.outputs.removeFirst()) }
                        if let ended = state.ended { return .some(ended) }
                        if Task.isCancelled { return .some(nil) }
                        state.waiter = continuation
                        return .none
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Output?, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: nil)
            }
        }

        /// Whether the child has been reaped.
        var hasEnded: Bool { state.withLock { $0.ended != nil } }

        /// SIGKILL to `pid` unless it has been reaped.
        func signalUnlessEnded(_ pid: pid_t) {
            state.withLock { state in
                if state.ended == nil { _ = kill(pid, SIGKILL) }
            }
        }

        /// Waits for the child to end, reaps it, and delivers the end.
        func reap(_ pid: pid_t) {
            var info = siginfo_t()
            // Why WNOWAIT first: the child stays a zombie (its id taken) until the reap below, under the lock.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            let end = state.withLock { state -> Output in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                let signaled = status & 0x7f != 0
                let end = Output.exited(status: signaled ? status & 0x7f : (status >> 8) & 0xff, signaled: signaled)
                state.ended = end
                return end
            }
            deliver(end)
        }
    }
}
