/// An expectation of the testing kit that did not hold by its deadline; its description says what was expected
/// and what was seen instead.
///
/// Thrown, so that any test framework reports it as a failure of the test that awaited it (Swift Testing
/// records a thrown error as an issue with this text).
public struct HeraldExpectationFailure: Error, CustomStringConvertible, Sendable {
    /// What was expected, and what was seen instead.
    public let description: String

    /// Creates a failure with its message.
    public init(_ description: String) {
        self.description = description
    }
}

/// Evaluates `check` until it returns a value or `timeout` has passed, and throws the `failure` message then.
func poll<T: Sendable>(
    within timeout: Duration,
    every interval: Duration = .milliseconds(20),
    failure: () async -> String,
    check: () async throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try await check() { return value }
        if clock.now >= deadline { throw HeraldExpectationFailure(await failure()) }
        try await Task.sleep(for: interval)
    }
}
