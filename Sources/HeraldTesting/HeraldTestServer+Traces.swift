import Foundation
import HeraldCore
import HeraldStore

extension HeraldTestServer {
    /// The delivery trace of a notification, oldest event first; empty when the server does not know the id.
    ///
    /// - Throws: ``HeraldExpectationFailure`` when `apnsID` is not a UUID.
    public func trace(of apnsID: String) async throws -> [TraceEvent] {
        guard let id = NotificationID(apnsID) else {
            throw HeraldExpectationFailure("'\(apnsID)' is not an apns-id (a UUID)")
        }
        return try await server.store.trace(id)
    }

    /// Waits until the trace of a notification ends in `kind` (e.g. `.expired`, `.displayed`), and returns it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the trace as it was.
    @discardableResult
    public func expectTrace(of apnsID: String, endsIn kind: TraceEventKind, within timeout: Duration = .seconds(5)) async throws -> [TraceEvent] {
        try await expectTrace(of: apnsID, within: timeout, "to end in \(kind)") { $0.last?.kind == kind }
    }

    /// Waits until the trace of a notification contains an event of `kind`, and returns it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the trace as it was.
    @discardableResult
    public func expectTrace(of apnsID: String, contains kind: TraceEventKind, within timeout: Duration = .seconds(5)) async throws -> [TraceEvent] {
        try await expectTrace(of: apnsID, within: timeout, "to contain \(kind)") { $0.contains { $0.kind == kind } }
    }

    /// Waits until the trace of a notification satisfies `holds` (e.g. "records two `media` events"), and returns it.
    ///
    /// - Parameter description: what was expected, for the failure message ("to record play and pause").
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the trace as it was.
    @discardableResult
    public func expectTrace(
        of apnsID: String,
        within timeout: Duration = .seconds(5),
        _ description: String,
        where holds: @Sendable ([TraceEvent]) -> Bool
    ) async throws -> [TraceEvent] {
        try await poll(within: timeout) {
            let events = (try? await self.trace(of: apnsID)) ?? []
            let seen = events.isEmpty ? "no trace" : events.map(\.kind.rawValue).joined(separator: " → ")
            return "the trace of \(apnsID) was expected \(description) within \(timeout), but it is: \(seen)"
        } check: {
            let events = try await self.trace(of: apnsID)
            return holds(events) ? events : nil
        }
    }
}
