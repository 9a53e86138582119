import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald trace APNS_ID`: what became of one notification, step by step.
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Print a notification and its delivery trace (accepted, stored, sent, acknowledged, device reports…)."
    )

    @OptionGroup var data: DataDirectoryOptions
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
            guard let (stored, events) = found else { throw CLIFailure("no notification with apns-id \(apnsID)") }
            if json {
                print(try OutputFormat.jsonLine(Self.jsonObject(stored, events)))
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
        return "\(time)  \(kind)  \(detail)"
    }

    /// The notification as `GET /api/v1/notifications/{apnsID}` shows it, with `trace`.
    static func jsonObject(_ stored: StoredNotification, _ events: [TraceEvent]) -> [String: Any] {
        let n = stored.notification
        return [
            "apnsID": n.id.text, "token": n.token.hex, "topic": n.topic, "bundleID": n.bundleID,
            "environment": n.environment.rawValue, "pushType": n.pushType.rawValue, "priority": n.priority.rawValue,
            "expiration": OutputFormat.nullable(n.expiration), "collapseID": OutputFormat.nullable(n.collapseID),
            "acceptedAt": n.acceptedAtMilliseconds, "state": stored.state.rawValue,
            "payload": OutputFormat.embeddedJSON(String(decoding: n.payload, as: UTF8.self)),
            "trace": events.map { event -> [String: Any] in
                ["at": event.atMilliseconds, "kind": event.kind.rawValue, "detail": OutputFormat.embeddedJSON(event.detailJSON)]
            },
        ]
    }
}
