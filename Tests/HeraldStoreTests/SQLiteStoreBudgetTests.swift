import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

/// The disk budget and a full disk: `storeFull`, nothing half-stored, an intact file, and room again once space is
/// freed (docs/delivery.md, "Retention").
@Suite("Store budget and full disk", .serialized, .tier(.unit))
struct SQLiteStoreBudgetTests {
    @Test("A new file returns free pages to the file system; the budget is in pages, with the journal's reserve")
    func newFileAndBudget() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, configure: { $0.maximumStoreBytes = 4096 * 2000 }) { store in
                #expect(try await store.returnsFreePages())
                let budget = try #require(store.budget)
                #expect(budget.pageSize == 4096)
                #expect(budget.acceptPages == 2000)
                #expect(budget.hardPages == 2100)
                #expect(try await store.pool.write { try Int64.fetchOne($0, sql: "PRAGMA max_page_count") } == 2100)
            }
            try await withStore(in: directory, configure: { $0.maximumStoreBytes = 1 }) { store in
                #expect(store.budget?.acceptPages == 1)
                #expect(store.budget?.hardPages == 65, "at least 64 pages of reserve")
            }
            try await withStore(in: directory, configure: { $0.maximumStoreBytes = nil }) { store in
                #expect(store.budget == nil)
            }
        }
    }

    @Test("At the budget a batch fails with storeFull and keeps nothing; what was accepted stays, and pruning makes room")
    func budgetRefusesThenPruningMakesRoom() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, configure: { $0.maximumStoreBytes = 400 * 1024 }) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let body = String(repeating: "x", count: 3000)
                var accepted: [AcceptedNotification] = []
                var refusal: StoreError?
                for index in 0..<200 {
                    let notification = AcceptedNotification.fixture(token: token, alert: body, acceptedAt: 1000 + Int64(index))
                    switch await enqueueAndWait(store, notification) {
                    case .success: accepted.append(notification)
                    case .failure(let error): refusal = error
                    }
                    if refusal != nil { break }
                }
                #expect(refusal == .storeFull)
                #expect(accepted.count > 50, "about 100 of 4 KB fit in 400 KiB")
                #expect(try await integrityCheck(store) == "ok")
                #expect(try await store.pendingNotifications().map(\.notification.id) == accepted.map(\.id))
                let size = try await store.size()
                let budget = try #require(store.budget)
                #expect(size.pageCount - size.freePageCount >= budget.acceptPages)

                // Recording deliveries uses the journal's reserve, above the budget; then the delivered ones can go.
                try await store.record(
                    accepted.map { DeliveryChange(notificationID: $0.id, event: .acknowledged, newState: .delivered, atMilliseconds: 5000) }
                )
                var after: Int64 = 0
                var pruned: [NotificationState: Int] = [:]
                while true {
                    let batch = try await store.prune(acceptedBefore: .max, after: after, limit: 20)
                    pruned.merge(batch.deletedByState, uniquingKeysWith: +)
                    if batch.isComplete { break }
                    after = batch.lastSequence
                }
                #expect(pruned == [.delivered: accepted.count])
                let free = try await store.size().freePageCount
                #expect(free > 50)
                #expect(try await store.vacuumIncrementally(maximumPages: 10) == free - 10)
                while try await store.vacuumIncrementally(maximumPages: 100) > 0 {}
                #expect(try await store.size().freePageCount == 0)
                let again = AcceptedNotification.fixture(token: token, alert: body, acceptedAt: 9000)
                #expect(try await enqueueAndWait(store, again).get() > 0)
                #expect(try await integrityCheck(store) == "ok")
            }
        }
    }

    @Test("A full disk answers storeFull, leaves the file intact, and every accepted notification is still there once space is freed")
    func fullDisk() async throws {
        try await withFullDisk { directory, disk in
            try await withStore(in: directory, configure: { $0.maximumStoreBytes = nil }) { store in
                try disk.fill(store)
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let body = String(repeating: "y", count: 3000)
                var accepted: [AcceptedNotification] = []
                var refusal: StoreError?
                for index in 0..<2000 {
                    let notification = AcceptedNotification.fixture(token: token, alert: body, acceptedAt: 1000 + Int64(index))
                    switch await enqueueAndWait(store, notification) {
                    case .success: accepted.append(notification)
                    case .failure(let error): refusal = error
                    }
                    if refusal != nil { break }
                }
                #expect(refusal == .storeFull, "\(refusal.map { "\($0)" } ?? "no refusal")")
                #expect(accepted.count > 10)
                #expect(try await integrityCheck(store) == "ok")
                #expect(try await store.pendingNotifications().map(\.notification.id) == accepted.map(\.id))

                try disk.free(store)
                let again = AcceptedNotification.fixture(token: token, alert: body, acceptedAt: 90_000)
                #expect(try await enqueueAndWait(store, again).get() > 0)
                #expect(try await integrityCheck(store) == "ok")
                #expect(try await store.pendingNotifications().map(\.notification.id) == (accepted + [again]).map(\.id))
            }
        }
    }
}

/// `PRAGMA integrity_check`'s first line (`ok` when the file is sound).
func integrityCheck(_ store: SQLiteStore) async throws -> String? {
    try await store.pool.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
}

/// A disk that fills up: ``fill`` after the store opened, ``free`` to make room again.
struct FullDisk {
    var fill: (SQLiteStore) throws -> Void
    var free: (SQLiteStore) throws -> Void
}

/// Runs `body` with a data directory on a small disk.
///
/// A 2 MiB tmpfs mounted for the test, and a 1 MiB filler file that ``FullDisk/free`` deletes (the tests run as root,
/// as CI does). Where mounting is refused, SQLite's own limit stands in: `PRAGMA max_page_count` makes SQLite answer
/// `SQLITE_FULL` exactly as a full disk does; ``FullDisk/fill`` sets it just above the file's size and
/// ``FullDisk/free`` raises it.
func withFullDisk(_ body: (String, FullDisk) async throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mounted = run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", directory]) == 0
        defer { if mounted { _ = run("/bin/umount", [directory]) } }
        let data = directory + "/data"
        if mounted {
            let filler = directory + "/filler"
            #expect(FileManager.default.createFile(atPath: filler, contents: Data(count: 1024 * 1024)))
            try await body(data, FullDisk(fill: { _ in }, free: { _ in try FileManager.default.removeItem(atPath: filler) }))
        } else {
            let limit: (SQLiteStore, Int64) throws -> Void = { store, pages in
                try store.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
            }
            let fill: (SQLiteStore) throws -> Void = { store in
                try limit(store, (try store.pool.read { try Int64.fetchOne($0, sql: "PRAGMA page_count") } ?? 0) + 300)
            }
            try await body(data, FullDisk(fill: fill, free: { try limit($0, 1_000_000) }))
        }
    }
}

/// Runs a tool to completion; its exit status, -1 when it could not start or ran past its deadline.
private func run(_ tool: String, _ arguments: [String]) -> Int32 {
    guard let result = try? ExternalProcess.runBlocking(tool, arguments), !result.timedOut else { return -1 }
    return result.status
}
