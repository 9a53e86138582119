import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

extension NotificationsCommand {
    /// `herald notifications prune`: deletes finished notifications now, as the server's retention does by its rules.
    ///
    /// Works while `herald serve` runs (SQLite's WAL lets both write; each batch is a short transaction). The server
    /// caches only notifications still waiting for delivery, which are never pruned, so it needs no telling.
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete finished notifications (delivered, expired, replaced, discarded) and their traces now.",
            discussion: """
                Notifications still waiting for their device are never deleted. Freed space goes back to the file \
                system when the database keeps free pages at its end (files made by this version); --vacuum rewrites \
                the file so that it does, and needs the server stopped and as much free disk space as the file takes.
                """
        )
        @OptionGroup var data: DataDirectoryOptions
        @Option(
            name: .customLong("older-than-hours"),
            help: "Only notifications accepted more than this many hours ago (default 0: every finished one)."
        )
        var olderThanHours = 0
        @Flag(help: "Rewrite the whole file afterwards (VACUUM); the server must be stopped.") var vacuum = false
        @Flag(help: "One JSON object: pruned counts by state, sizes in bytes.") var json = false

        func run() async throws {
            try await reportingErrors {
                guard (0...(24 * 365 * 100)).contains(olderThanHours) else {
                    throw CLIFailure("--older-than-hours must be between 0 and 876000")
                }
                if vacuum, data.databaseURL != nil {
                    throw CLIFailure("--vacuum rewrites the SQLite file; on PostgreSQL, VACUUM is PostgreSQL's (docs/postgresql.md)")
                }
                if data.databaseURL == nil { try data.requireExisting() }
                // A VACUUM holds the write lock for as long as it copies the file: a running server's pushes would fail.
                if vacuum { try DataDirectoryLock.acquire(in: data.url) }
                let cutoff = Int64(Date().timeIntervalSince1970 * 1000) - Int64(olderThanHours) * 3_600_000
                let (byState, before, after) = try await withStore(data) { store -> ([NotificationState: Int], StoreSize?, StoreSize?) in
                    // PostgreSQL manages its own space: the counts only.
                    guard let file = store as? SQLiteStore else { return (try await Self.prune(store, acceptedBefore: cutoff), nil, nil) }
                    let before = try await file.size()
                    let byState = try await Self.prune(file, acceptedBefore: cutoff)
                    if vacuum {
                        try await file.vacuum()
                    } else if try await file.returnsFreePages() {
                        while try await file.vacuumIncrementally(maximumPages: 2048) > 0 {}
                    }
                    return (byState, before, try await file.size())
                }
                print(try Self.report(byState, before: before, after: after, json: json))
            }
        }

        /// Prunes every finished notification accepted before `cutoff`, in batches; the counts by state.
        static func prune(_ store: any NotificationStore, acceptedBefore cutoff: Int64) async throws -> [NotificationState: Int] {
            var byState: [NotificationState: Int] = [:]
            var after: Int64 = 0
            while true {
                let batch = try await store.prune(acceptedBefore: cutoff, after: after, limit: 1000)
                byState.merge(batch.deletedByState, uniquingKeysWith: +)
                if batch.isComplete { return byState }
                after = batch.lastSequence
            }
        }

        /// The one-line (or JSON) report; without sizes (PostgreSQL) the counts only.
        static func report(_ byState: [NotificationState: Int], before: StoreSize?, after: StoreSize?, json: Bool) throws -> String {
            let states: [NotificationState] = [.delivered, .expired, .replaced, .discarded]
            let total = byState.values.reduce(0, +)
            if json {
                var pruned: [String: JSONValue] = [:]
                for state in states { pruned[state.rawValue] = .int(byState[state] ?? 0) }
                var object: [String: JSONValue] = ["pruned": .int(total), "prunedByState": .object(pruned)]
                if let before, let after {
                    object["sizeBefore"] = .integer(before.bytes)
                    object["sizeAfter"] = .integer(after.bytes)
                    object["usedAfter"] = .integer(after.usedBytes)
                }
                return OutputFormat.jsonLine(object)
            }
            let parts = states.map { "\($0.rawValue) \(byState[$0] ?? 0)" }.joined(separator: ", ")
            func mebibytes(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
            guard let before, let after else { return "Pruned \(total) finished notifications (\(parts))." }
            return "Pruned \(total) finished notifications (\(parts)); the database went from \(mebibytes(before.bytes)) to "
                + "\(mebibytes(after.bytes)) (\(mebibytes(after.usedBytes)) in use)."
        }
    }
}
