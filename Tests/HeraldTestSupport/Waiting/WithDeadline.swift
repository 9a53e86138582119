/// Runs `body`, which waits on a signal (a stream, a continuation), and throws ``WaitTimedOut`` naming `what` when
/// `timeout` passes first: the deadline of a wait that needs no polling. `body` is cancelled at the deadline.
public func withDeadline<T: Sendable>(
    _ what: String = "the result",
    within timeout: Duration = .seconds(10),
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw WaitTimedOut("\(what): not within \(timeout)")
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() else { throw WaitTimedOut("\(what): not within \(timeout)") }
        return result
    }
}
