import HeraldStore
import Synchronization

/// Runs an operation with a deadline that holds even when the operation does not stop when cancelled.
///
/// Why not a task group of the operation and a sleep: a group returns only once every child has ended, and a query on
/// a connection that the network cut without a word (no FIN, no RST) may not end when cancelled — the group commit's
/// writer then waited forever and every provider request with it (ClusterEndToEndTests, "PostgreSQL unreachable under
/// load"). Here the operation runs in a task of its own: at the deadline the caller gets
/// ``StoreError/unavailable`` at once and the operation is cancelled, and whatever it does afterwards is ignored.
package enum OperationDeadline {
    /// The first of the operation's result and the deadline, told once.
    private final class Race<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, work: Task<Void, Never>?, timer: Task<Void, Never>?)>(
            (nil, nil, nil)
        )

        init(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        func start(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let finished = state.withLock { state -> Bool in
                guard state.continuation != nil else { return true }
                state.work = work
                state.timer = timer
                return false
            }
            if finished {
                work.cancel()
                timer.cancel()
            }
        }

        /// Tells the caller, the first time; cancels the loser.
        func finish(_ result: Result<T, any Error>) {
            let (continuation, work, timer) = state.withLock { state in
                defer { state = (nil, nil, nil) }
                return state
            }
            guard let continuation else { return }
            work?.cancel()
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    package static func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let holder = Mutex<Race<T>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let race = Race(continuation)
                holder.withLock { $0 = race }
                let work = Task {
                    do {
                        race.finish(.success(try await body()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    do {
                        try await Task.sleep(for: timeout)
                    } catch {
                        return
                    }
                    race.finish(.failure(StoreError.unavailable.with(detail: "no answer from the database within \(timeout)")))
                }
                race.start(work: work, timer: timer)
            }
        } onCancel: {
            holder.withLock { $0 }?.finish(.failure(CancellationError()))
        }
    }
}
