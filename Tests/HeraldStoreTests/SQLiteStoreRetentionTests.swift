import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Retention: pruning finished notifications", .tier(.process))
struct SQLiteStoreRetentionTests {
    @Test("Finished notifications older than the cutoff go with their traces; stored and newer ones stay", arguments: StoreBackend.allCases)
    func prunesFinishedBeforeCutoff(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                // Accepted at 1000…1007; the cutoff is 1006.
                var sent: [AcceptedNotification] = []
                for index in 0..<8 {
                    let notification = AcceptedNotification.fixture(token: token, alert: "n\(index)", acceptedAt: 1000 + Int64(index))
                    try await store.accept(notification)
                    sent.append(notification)
                }
                try await store.record([
                    DeliveryChange(notificationID: sent[0].id, event: .acknowledged, newState: .delivered, atMilliseconds: 2000),
                    DeliveryChange(notificationID: sent[1].id, event: .expired, newState: .expired, atMilliseconds: 2000),
                    // sent[2] stays stored: old, but waiting for its device.
                    DeliveryChange(notificationID: sent[3].id, event: .replaced, newState: .replaced, atMilliseconds: 2000),
                    DeliveryChange(notificationID: sent[4].id, event: .discarded, newState: .discarded, atMilliseconds: 2000),
                    DeliveryChange(notificationID: sent[5].id, event: .sent, atMilliseconds: 2000),
                    // sent[6] and sent[7] are newer than the cutoff: kept although delivered.
                    DeliveryChange(notificationID: sent[6].id, event: .acknowledged, newState: .delivered, atMilliseconds: 2000),
                    DeliveryChange(notificationID: sent[7].id, event: .acknowledged, newState: .delivered, atMilliseconds: 2000),
                ])

                var after: Int64 = 0
                var deleted = 0
                var batches = 0
                while true {
                    let batch = try await store.prune(acceptedBefore: 1006, after: after, limit: 2)
                    deleted += batch.deleted
                    batches += 1
                    if batch.isComplete { break }
                    #expect(batch.lastSequence > after)
                    after = batch.lastSequence
                }
                #expect(deleted == 4)
                #expect(batches == 4)  // 2 + 2 + 2 looked at, then the first newer one ends the pass.
                for index in [0, 1, 3, 4] {
                    #expect(try await store.notification(sent[index].id) == nil)
                    #expect(try await store.trace(sent[index].id).isEmpty)
                }
                for index in [2, 5, 6, 7] {
                    #expect(try await store.notification(sent[index].id) != nil)
                    #expect(try await store.trace(sent[index].id).first?.kind == .accepted)
                }
                #expect(try await store.pendingNotifications().map(\.notification.id) == [sent[2].id, sent[5].id])

                // A second pass finds nothing more; after `sent[5]` is delivered and the cutoff moves, it goes too.
                let again = try await store.prune(acceptedBefore: 1006, after: 0, limit: 100)
                #expect(again == PruneBatch(deleted: 0, lastSequence: 6, isComplete: true))
                try await store.record([
                    DeliveryChange(notificationID: sent[5].id, event: .acknowledged, newState: .delivered, atMilliseconds: 3000)
                ])
                let last = try await store.prune(acceptedBefore: 10_000, after: 0, limit: 100)
                #expect(last.deleted == 3)
                #expect(last.isComplete)
                #expect(try await store.pendingNotifications().map(\.notification.id) == [sent[2].id])
            }
        }
    }

    @Test("A pass on an empty store is complete at once", arguments: StoreBackend.allCases)
    func emptyStore(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let batch = try await store.prune(acceptedBefore: .max, after: 0, limit: 10)
                #expect(batch == PruneBatch(deleted: 0, lastSequence: 0, isComplete: true))
            }
        }
    }
}
