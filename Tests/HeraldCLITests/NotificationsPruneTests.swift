import Foundation
import GRDB
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Testing

@testable import HeraldCLI

/// `herald notifications prune`, in process, on a data directory of its own.
@Suite("herald notifications prune", .tier(.unit))
struct NotificationsPruneTests {
    @Test("deletes every finished notification now, keeps the stored ones, and reports by state")
    func prunesFinished() async throws {
        try await withDataDirectory { directory in
            let (kept, _) = try await Self.fill(directory)
            try await NotificationsCommand.Prune.parse(["--data-dir", directory]).run()
            let store = try SQLiteStore(configuration: .init(dataDirectory: directory))
            let left = try await store.listNotifications(token: nil, limit: 100)
            await store.shutdown()
            #expect(left.map(\.notification.id) == [kept])
            #expect(left.map(\.state) == [.stored])
        }
    }

    @Test("--older-than-hours keeps recent finished notifications; a bad value is refused")
    func olderThan() async throws {
        try await withDataDirectory { directory in
            _ = try await Self.fill(directory)
            try await NotificationsCommand.Prune.parse(["--data-dir", directory, "--older-than-hours", "1"]).run()
            let store = try SQLiteStore(configuration: .init(dataDirectory: directory))
            #expect(try await store.listNotifications(token: nil, limit: 100).count == 4, "all were accepted just now")
            await store.shutdown()
            let bad = try NotificationsCommand.Prune.parse(["--data-dir", directory, "--older-than-hours=-1"])
            await #expect(throws: (any Error).self) { try await bad.run() }
        }
    }

    @Test("--vacuum rewrites a file made without incremental vacuum so that it returns free pages from then on")
    func vacuumConvertsAnOlderFile() async throws {
        try await withDataDirectory { directory in
            // A file as older versions made them: auto_vacuum off. SQLite's process-wide settings come first.
            SQLiteStore.configureSQLite()
            let queue = try DatabaseQueue(path: directory + "/herald.sqlite")
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA auto_vacuum = NONE; CREATE TABLE placeholder (x INTEGER)")
            }
            try queue.close()
            let (_, finished) = try await Self.fill(directory)
            let before = try SQLiteStore(configuration: .init(dataDirectory: directory))
            #expect(try await before.returnsFreePages() == false)
            await before.shutdown()
            try await NotificationsCommand.Prune.parse(["--data-dir", directory, "--vacuum"]).run()
            let after = try SQLiteStore(configuration: .init(dataDirectory: directory))
            #expect(try await after.returnsFreePages())
            #expect(try await after.size().freePageCount == 0)
            for id in finished { #expect(try await after.notification(id) == nil) }
            await after.shutdown()
        }
    }

    @Test("the report names every state and both sizes; --json is one object")
    func report() throws {
        let before = StoreSize(pageSize: 4096, pageCount: 512, freePageCount: 0)
        let after = StoreSize(pageSize: 4096, pageCount: 256, freePageCount: 0)
        let text = try NotificationsCommand.Prune.report([.delivered: 3, .expired: 1], before: before, after: after, json: false)
        #expect(
            text
                == "Pruned 4 finished notifications (delivered 3, expired 1, replaced 0, discarded 0); the database went from 2.0 MiB to 1.0 MiB (1.0 MiB in use)."
        )
        let json = try NotificationsCommand.Prune.report([.delivered: 3], before: before, after: after, json: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["pruned"] as? Int == 3)
        #expect((object["prunedByState"] as? [String: Int])?["discarded"] == 0)
        #expect(object["sizeAfter"] as? Int == 1_048_576)
    }

    /// One stored notification and three finished ones (delivered, expired, replaced); the stored one's id and the others'.
    static func fill(_ directory: String) async throws -> (NotificationID, [NotificationID]) {
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory))
        let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
        var ids: [NotificationID] = []
        for index in 0..<4 {
            let notification = AcceptedNotification.fixture(
                token: token,
                alert: "n\(index)",
                acceptedAt: Int64(Date().timeIntervalSince1970 * 1000) - 1000 + Int64(index)
            )
            try await store.accept(notification)
            ids.append(notification.id)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await store.record([
            DeliveryChange(notificationID: ids[0], event: .acknowledged, newState: .delivered, atMilliseconds: now),
            DeliveryChange(notificationID: ids[1], event: .expired, newState: .expired, atMilliseconds: now),
            DeliveryChange(notificationID: ids[2], event: .replaced, newState: .replaced, atMilliseconds: now),
        ])
        await store.shutdown()
        return (ids[3], Array(ids[0..<3]))
    }

    func withDataDirectory(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-prune-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }
}
