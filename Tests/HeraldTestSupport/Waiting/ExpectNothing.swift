import Testing

/// Expects that `happened` stays false for `duration`: the "nothing more happens" wait, named so that a reader sees a
/// deliberate window and what it watches, not a sleep. Checks every `interval`; records an issue naming `what` as soon
/// as `happened` turns true.
///
/// Only for what has no signal to wait on (something that must not arrive); a wait for something that should happen
/// is ``eventually(_:within:every:_:)``.
public func expectNothing(
    for duration: Duration,
    _ what: String,
    every interval: Duration = .milliseconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ happened: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let end = clock.now + duration
    repeat {
        if try await happened() {
            Issue.record("\(what) within \(duration)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: interval)
    } while clock.now < end
    if try await happened() { Issue.record("\(what) within \(duration)", sourceLocation: sourceLocation) }
}
