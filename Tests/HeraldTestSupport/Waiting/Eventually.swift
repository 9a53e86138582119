/// A wait whose condition did not hold before its deadline.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Waits until `condition` holds, checking it every `interval`; throws ``WaitTimedOut`` naming `what` when `timeout`
/// passes first.
///
/// Every wait has a deadline and none is a timing assertion: a slow machine only makes it take longer. For a type
/// that can say when it changed, wait on that signal instead (a continuation, an `AsyncStream`).
public func eventually(
    _ what: String,
    within timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    try await eventually(what, within: timeout, every: interval) { try await condition() ? () : nil }
}

/// Calls `probe` every `interval` until it returns a value, and returns that value; throws ``WaitTimedOut`` naming
/// `what`, and `state()` (what was last seen), when `timeout` passes first.
@discardableResult
public func eventually<Value>(
    _ what: String,
    within timeout: Duration = .seconds(10),
    every interval: Duration = .milliseconds(10),
    state: @autoclosure () -> String = "",
    _ probe: () async throws -> Value?
) async throws -> Value {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try await probe() { return value }
        guard clock.now < deadline else {
            let seen = state()
            throw WaitTimedOut("\(what): not within \(timeout)\(seen.isEmpty ? "" : "\n\(seen)")")
        }
        try await Task.sleep(for: interval)
    }
}
