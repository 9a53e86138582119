import Foundation
import HeraldCore
import Testing

@testable import HeraldStore

@Suite("Delivery changes and pending notifications")
struct SQLiteStoreDeliveryTests {
    @Test("Pending notifications are the stored ones, oldest first")
    func pending() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                var sent: [AcceptedNotification] = []
                for index in 0..<5 {
                    let notification = makeNotification(token: token, body: "n\(index)", acceptedAt: 1000 + Int64(index))
                    try await store.accept(notification)
                    sent.append(notification)
                }
                try await store.record([
                    DeliveryChange(notificationID: sent[1].id, event: .acknowledged, newState: .delivered, atMilliseconds: 2000),
                    DeliveryChange(notificationID: sent[3].id, event: .expired, newState: .expired, atMilliseconds: 2000),
                ])
                let pending = try await store.pendingNotifications()
                #expect(pending.map(\.notification) == [sent[0], sent[2], sent[4]])
                #expect(pending.allSatisfy { $0.state == .stored })
                #expect(pending.map(\.sequence) == pending.map(\.sequence).sorted())
            }
        }
    }

    @Test("A batch appends its events in order and moves states; final states stay final")
    func finalStatesStayFinal() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = makeNotification(token: token, acceptedAt: 1000)
                try await store.accept(notification)
                let id = notification.id
                try await store.record([
                    DeliveryChange(notificationID: id, event: .sent, atMilliseconds: 1001, detailJSON: #"{"attempt":1,"session":"s1"}"#),
                    DeliveryChange(notificationID: id, event: .acknowledged, newState: .delivered, atMilliseconds: 1002),
                    // In the same batch, after the final state: traced, state unchanged.
                    DeliveryChange(notificationID: id, event: .expired, newState: .expired, atMilliseconds: 1003),
                ])
                #expect(try await store.notification(id)?.state == .delivered)
                // A later batch cannot move it either; device reports keep the state.
                try await store.record([
                    DeliveryChange(notificationID: id, event: .replaced, newState: .replaced, atMilliseconds: 1004),
                    DeliveryChange(notificationID: id, event: .displayed, atMilliseconds: 1005, detailJSON: #"{"title":"Hi"}"#),
                ])
                #expect(try await store.notification(id)?.state == .delivered)
                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .expired, .replaced, .displayed])
                #expect(trace.map(\.atMilliseconds) == [1000, 1001, 1002, 1003, 1004, 1005])
                #expect(trace[1].detailJSON == #"{"attempt":1,"session":"s1"}"#)
                #expect(trace[2].detailJSON == nil)
                #expect(trace.map(\.id) == trace.map(\.id).sorted())
            }
        }
    }

    @Test("A change with a sequence lands on that row; once its apns-id was reused it is traced there but moves no state")
    func changesBySequence() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let older = makeNotification(token: token, acceptedAt: 1000)
                let olderSequence = try await store.accept(older)
                #expect(try await store.notification(older.id)?.sequence == olderSequence)
                let newer = makeNotification(token: token, id: older.id, body: "again", acceptedAt: 1001)
                let newerSequence = try await store.accept(newer)
                #expect(newerSequence > olderSequence)

                // The older notification's late acknowledgement: traced with the apns-id, the newer stays `stored`.
                try await store.record([
                    DeliveryChange(
                        notificationID: older.id,
                        sequence: olderSequence,
                        event: .acknowledged,
                        newState: .delivered,
                        atMilliseconds: 2000
                    )
                ])
                #expect(try await store.notification(older.id)?.state == .stored)
                #expect(try await store.trace(older.id).map(\.kind) == [.accepted, .replaced, .accepted, .acknowledged])

                // The newer notification's own acknowledgement delivers it.
                try await store.record([
                    DeliveryChange(
                        notificationID: newer.id,
                        sequence: newerSequence,
                        event: .acknowledged,
                        newState: .delivered,
                        atMilliseconds: 2001
                    )
                ])
                let stored = try #require(try await store.notification(newer.id))
                #expect(stored.sequence == newerSequence)
                #expect(stored.state == .delivered)
                #expect(try await store.trace(newer.id).map(\.kind) == [.accepted, .replaced, .accepted, .acknowledged, .acknowledged])
            }
        }
    }

    @Test("A change without a sequence applies to whichever notification holds the apns-id; an unknown one is skipped")
    func changesByApnsID() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let older = makeNotification(token: token, acceptedAt: 1000)
                try await store.accept(older)
                try await store.accept(makeNotification(token: token, id: older.id, body: "again", acceptedAt: 1001))
                let unknown = makeNotification(token: token, acceptedAt: 1002)
                let before = try await store.counts()

                try await store.record(
                    [older, unknown].map { DeliveryChange(notificationID: $0.id, event: .acknowledged, newState: .delivered, atMilliseconds: 2000) }
                )
                #expect(try await store.notification(older.id)?.state == .delivered)
                #expect(try await store.trace(older.id).map(\.kind) == [.accepted, .replaced, .accepted, .acknowledged])
                #expect(try await store.counts().traceEvents == before.traceEvents + 1)
            }
        }
    }

    @Test("A change for a pruned sequence is skipped, not an error")
    func changeForPrunedSequence() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let pruned = makeNotification(token: token, acceptedAt: 1000)
                let sequence = try await store.accept(pruned)
                try await store.record([
                    DeliveryChange(notificationID: pruned.id, sequence: sequence, event: .expired, newState: .expired, atMilliseconds: 1001)
                ])
                _ = try await store.prune(acceptedBefore: 1005, after: sequence - 1, limit: 1)
                #expect(try await store.notification(pruned.id) == nil)
                let before = try await store.counts()

                try await store.record([DeliveryChange(notificationID: pruned.id, sequence: sequence, event: .acknowledged, atMilliseconds: 2000)])
                #expect(try await store.counts().traceEvents == before.traceEvents)
            }
        }
    }

    @Test("A change for an unknown apns-id is skipped; the rest of the batch is written")
    func unknownIDsAreSkipped() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = makeNotification(token: token)
                try await store.accept(notification)
                let unknown = NotificationID.random()
                try await store.record([
                    DeliveryChange(notificationID: unknown, event: .acknowledged, newState: .delivered, atMilliseconds: 5),
                    DeliveryChange(notificationID: notification.id, event: .expired, newState: .expired, atMilliseconds: 6),
                    DeliveryChange(notificationID: unknown, event: .sent, atMilliseconds: 7),
                ])
                #expect(try await store.trace(unknown).isEmpty)
                #expect(try await store.notification(notification.id)?.state == .expired)
                let counts = try await store.counts()
                #expect(counts.traceEvents == 2)
                #expect(counts.notificationsByState == [.expired: 1])
                // An empty batch is no work and no error.
                try await store.record([])
            }
        }
    }

    @Test("An apns-id in another case names the same notification")
    func caseInsensitiveIDs() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let id = NotificationID("ABCDEF01-2345-4678-9ABC-DEF012345678")!
                try await store.accept(makeNotification(token: token, id: id))
                let lower = NotificationID("abcdef01-2345-4678-9abc-def012345678")!
                try await store.record([DeliveryChange(notificationID: lower, event: .acknowledged, newState: .delivered, atMilliseconds: 9)])
                #expect(try await store.notification(id)?.state == .delivered)
                #expect(try await store.trace(id).map(\.kind) == [.accepted, .acknowledged])
            }
        }
    }

    @Test("A change the schema refuses fails the whole batch and writes nothing")
    func invalidChangeFailsTheBatch() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = makeNotification(token: token)
                let other = makeNotification(token: token)
                try await store.accept(notification)
                try await store.accept(other)
                // Before the bad change: a state change of another notification and an event of this one.
                let good = [
                    DeliveryChange(notificationID: other.id, event: .acknowledged, newState: .delivered, atMilliseconds: 1),
                    DeliveryChange(notificationID: notification.id, event: .sent, atMilliseconds: 1),
                ]
                let invalid = [
                    DeliveryChange(notificationID: notification.id, event: .displayed, atMilliseconds: 2, detailJSON: "[1, 2]"),
                    DeliveryChange(notificationID: notification.id, event: .displayed, atMilliseconds: 2, detailJSON: "{not json"),
                    DeliveryChange(notificationID: notification.id, event: TraceEventKind(rawValue: "Bad Kind"), atMilliseconds: 2),
                    DeliveryChange(notificationID: notification.id, event: .sent, newState: NotificationState(rawValue: "lost"), atMilliseconds: 2),
                ]
                for change in invalid {
                    await #expect(throws: StoreError.invalidRecord, "\(change)") { try await store.record(good + [change]) }
                }
                #expect(try await store.notification(other.id)?.state == .stored)
                #expect(try await store.trace(other.id).map(\.kind) == [.accepted])
                #expect(try await store.trace(notification.id).map(\.kind) == [.accepted])
                // The statements are usable again after a failed batch.
                try await store.record(good)
                #expect(try await store.notification(other.id)?.state == .delivered)
                #expect(try await store.trace(notification.id).map(\.kind) == [.accepted, .sent])
            }
        }
    }

    @Test("A device's notifications: every token it was issued, newest first, within the limit")
    func listByDevice() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let phone = try await store.addDevice(name: "phone").device
                let tablet = try await store.addDevice(name: "tablet").device
                let old = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let elsewhere = try await store.registerAppToken(deviceID: tablet.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let first = makeNotification(token: old, body: "first")
                try await store.accept(first)
                try await store.accept(makeNotification(token: elsewhere, body: "tablet"))
                try await store.unregister(old, atMilliseconds: SystemWallClock().nowMilliseconds())
                let renewed = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let second = makeNotification(token: renewed, body: "second")
                let third = makeNotification(token: renewed, body: "third")
                try await store.accept(second)
                try await store.accept(third)

                #expect(try await store.listNotifications(deviceID: phone.id, limit: 10).map(\.notification) == [third, second, first])
                #expect(try await store.listNotifications(deviceID: phone.id.uppercased(), limit: 2).map(\.notification) == [third, second])
                #expect(try await store.listNotifications(deviceID: tablet.id, limit: 10).count == 1)
                #expect(try await store.listNotifications(deviceID: phone.id, limit: 0).isEmpty)
                #expect(try await store.listNotifications(deviceID: UUID().uuidString, limit: 10).isEmpty)
            }
        }
    }
}
