import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald trace APNS_ID`: what became of one notification, step by step.
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Print a notification and its delivery trace (accepted, stored, sent, acknowledged, device reports…).",
        discussion: """
            The trace is read from the data directory's store, with the fault rules' events (docs/faults.md) and the push \
            service's refusals (docs/web-push.md) from the running server's web port (--server): a request a fault rule \
            answered with an error, or a refused web push, is not stored, and the \
            server keeps its trace in memory.
            """
    )

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var web: FaultsCommand.WebPortOptions
    @Argument(help: "The notification's apns-id (a UUID; case does not matter).") var apnsID: String
    @Flag(help: "Print one JSON object: the notification, as the inspection API shows it, with its trace.") var json = false

    func run() async throws {
        try await reportingErrors {
            guard let id = NotificationID(apnsID) else {
                throw CLIFailure("'\(apnsID)' is not an apns-id (expected a UUID, 8-4-4-4-12 hex digits)")
            }
            let store = try await openStore(data)
            let found: (StoredNotification, [TraceEvent])?
            do {
                if let stored = try await store.notification(id) {
                    found = (stored, try await store.trace(id))
                } else {
                    found = nil
                }
            } catch {
                await store.shutdown()
                throw error
            }
            await store.shutdown()
            let faults = await Self.faultEvents(id, web: web)
            guard let (stored, storedEvents) = found else {
                guard !faults.isEmpty else { throw CLIFailure("no notification with apns-id \(apnsID)") }
                // Answered by a fault rule or refused by the push service: no notification, only the server's events.
                if json {
                    print(OutputFormat.jsonLine(["apnsID": .string(id.text), "trace": .array(faults.map(Self.jsonObject))]))
                } else {
                    let why = faults.contains { $0.kind.rawValue == "refused" } ? "the push service refused it" : "a fault rule answered"
                    print("\(id.text)  not accepted: \(why) (no notification is stored)")
                    for event in faults { print("  " + Self.line(event)) }
                }
                return
            }
            let events = Self.merged(storedEvents, faults)
            if json {
                print(OutputFormat.jsonLine(Self.jsonObject(stored, events)))
            } else {
                print(Self.summary(stored))
                for event in events { print("  " + Self.line(event)) }
            }
        }
    }

    /// The notification on one line: id, token, topic, push type, priority, state, acceptance time.
    static func summary(_ stored: StoredNotification) -> String {
        let n = stored.notification
        var parts = [n.id.text, n.token.hex, n.topic, n.pushType.rawValue, "p\(n.priority.rawValue)", stored.state.rawValue]
        if let collapseID = n.collapseID { parts.append("collapse-id \(collapseID)") }
        if let expiration = n.expiration { parts.append("expiration \(expiration)") }
        parts.append("accepted \(OutputFormat.iso8601(milliseconds: n.acceptedAtMilliseconds))")
        return parts.joined(separator: "  ")
    }

    /// One event: its time (ISO 8601, milliseconds), its kind, and its detail (a JSON object) if any.
    static func line(_ event: TraceEvent) -> String {
        let time = OutputFormat.iso8601(milliseconds: event.atMilliseconds)
        guard let detail = event.detailJSON else { return "\(time)  \(event.kind.rawValue)" }
        // Kinds padded to the longest one the engine writes ("acknowledged"), so details line up.
        let kind = event.kind.rawValue.padding(toLength: max(event.kind.rawValue.count, 12), withPad: " ", startingAt: 0)
        return "\(time)  \(kind)  \(TraceDetail.readable(detail))"
    }

    /// The store's events and the server's `fault` events, by time (a fault first at the same time), as the
    /// inspection API merges them.
    static func merged(_ stored: [TraceEvent], _ faults: [TraceEvent]) -> [TraceEvent] {
        guard !faults.isEmpty else { return stored }
        return (faults.map { (event: $0, rank: 0) } + stored.map { (event: $0, rank: 1) })
            .enumerated()
            .sorted { ($0.element.event.atMilliseconds, $0.element.rank, $0.offset) < ($1.element.event.atMilliseconds, $1.element.rank, $1.offset) }
            .map(\.element.event)
    }

    /// The events only the running server keeps, in memory: `fault` (a fault rule applied, docs/faults.md) and `refused`
    /// (the push service refused a web push, docs/web-push.md).
    static let serverKinds: Set<String> = [TraceEventKind.fault.rawValue, "refused"]

    /// The `fault` and `refused` events of the running server's trace of `id` (`GET /api/v1/notifications/{id}/trace`), their details
    /// in the server's order: none when no server answers there, or it has none.
    static func faultEvents(_ id: NotificationID, web: FaultsCommand.WebPortOptions) async -> [TraceEvent] {
        guard let (status, body) = try? await FaultsAPIClient(options: web).exchange("GET", "/api/v1/notifications/\(id.text)/trace"),
            status == 200, let trace = (try? JSONParser.parse(body))?.objectValue?["trace"]?.arrayValue
        else { return [] }
        return trace.compactMap { event in
            guard let object = event.objectValue, let kind = object["kind"]?.stringValue, Self.serverKinds.contains(kind),
                let at = object["at"]?.intValue
            else { return nil }
            let detail = object["detail"].flatMap { $0 == .null ? nil : TraceDetail.json($0) }
            return TraceEvent(id: 0, notificationKey: id.key, atMilliseconds: Int64(at), kind: TraceEventKind(rawValue: kind), detailJSON: detail)
        }
    }

    /// One event as the inspection API writes it: `{"at", "kind", "detail"}`.
    static func jsonObject(_ event: TraceEvent) -> JSONValue {
        ["at": .integer(event.atMilliseconds), "kind": .string(event.kind.rawValue), "detail": OutputFormat.embeddedJSON(event.detailJSON)]
    }

    /// The notification as `GET /api/v1/notifications/{apnsID}` shows it, with `trace`.
    static func jsonObject(_ stored: StoredNotification, _ events: [TraceEvent]) -> [String: JSONValue] {
        let n = stored.notification
        return [
            "apnsID": .string(n.id.text), "token": .string(n.token.hex), "topic": .string(n.topic), "bundleID": .string(n.bundleID),
            "environment": .string(n.environment.rawValue), "pushType": .string(n.pushType.rawValue), "priority": .int(n.priority.rawValue),
            "expiration": .nullable(n.expiration), "collapseID": .nullable(n.collapseID),
            "acceptedAt": .integer(n.acceptedAtMilliseconds), "state": .string(stored.state.rawValue),
            "payload": OutputFormat.embeddedJSON(String(decoding: n.payload, as: UTF8.self)),
            "trace": .array(events.map(jsonObject)),
        ]
    }
}
