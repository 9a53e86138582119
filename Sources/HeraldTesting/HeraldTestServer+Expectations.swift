import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldUserNotifications

extension HeraldTestServer {
    /// A notification's state in the store (`stored`, `delivered`, `expired`, `replaced`, `discarded`); `nil` when
    /// the server does not know it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` when `apnsID` is not a UUID.
    public func state(of apnsID: String) async throws -> NotificationState? {
        guard let id = NotificationID(apnsID) else {
            throw HeraldExpectationFailure("'\(apnsID)' is not an apns-id (a UUID)")
        }
        return try await server.store.notification(id)?.state
    }

    /// Waits until a notification is in `state` (e.g. `.delivered`: the device acknowledged it).
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the state and trace as they were.
    public func expectState(of apnsID: String, is state: NotificationState, within timeout: Duration = .seconds(5)) async throws {
        _ = try await poll(within: timeout) {
            let current = (try? await self.state(of: apnsID)).flatMap { $0?.rawValue } ?? "unknown"
            let events = (try? await self.trace(of: apnsID)) ?? []
            return "\(apnsID) was expected to be \(state) within \(timeout), but it is \(current)"
                + " (trace: \(events.map(\.kind.rawValue).joined(separator: " → ")))"
        } check: {
            try await self.state(of: apnsID) == state ? true : nil
        }
    }

    /// Waits until the trace of a notification has an event of `kind`, and returns the first one — for a device's
    /// report, its ``TraceEvent/detail`` is what the device sent (the title shown, the callbacks, …).
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the trace as it was.
    @discardableResult
    public func expectTraceEvent(_ kind: TraceEventKind, of apnsID: String, within timeout: Duration = .seconds(5)) async throws -> TraceEvent {
        let events = try await expectTrace(of: apnsID, contains: kind, within: timeout)
        guard let event = events.first(where: { $0.kind == kind }) else {
            throw HeraldExpectationFailure("the trace of \(apnsID) lost its \(kind) event")
        }
        return event
    }

    /// Runs `body` with a provider client from ``makeProviderClient(tls:)`` and shuts the client down however
    /// `body` ends.
    public func withProviderClient<T: Sendable>(tls: Bool = true, _ body: (APNSProviderClient) async throws -> T) async throws -> T {
        let client = try makeProviderClient(tls: tls)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

extension TraceEvent {
    /// The event's detail as JSON (`[:]` when it has none): for a device's report, what the device sent.
    public var detail: [String: HeraldUserNotifications.JSONValue] {
        guard let text = detailJSON,
            let value = try? JSONDecoder().decode(HeraldUserNotifications.JSONValue.self, from: Data(text.utf8))
        else { return [:] }
        return value.dictionaryValue ?? [:]
    }

    /// A value of the detail by its dotted path (`after.title`, `contentExtension.size`), or `nil`.
    public func detailValue(_ path: String) -> HeraldUserNotifications.JSONValue? {
        var current: HeraldUserNotifications.JSONValue? = .object(detail)
        for part in path.split(separator: ".") {
            current = current?.objectValue?[String(part)]
        }
        return current
    }
}
