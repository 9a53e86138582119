import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Delivery changes and pending notifications", .tier(.process))
struct SQLiteStoreDeliveryTests {
    @Test("Pending notifications are the stored ones, oldest first", arguments: StoreBackend.allCases)
    func pending(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                var sent: [AcceptedNotification] = []
                for index in 0..<5 {
                    let notification = AcceptedNotification.fixture(token: token, alert: "n\(index)", acceptedAt: 1000 + Int64(index))
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

    @Test("A batch appends its events in order and moves states; final states stay final", arguments: StoreBackend.allCases)
    func finalStatesStayFinal(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = AcceptedNotification.fixture(token: token, acceptedAt: 1000)
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

    @Test(
        "A change with a sequence lands on that row; once its apns-id was reused it is traced there but moves no state",
        arguments: StoreBackend.allCases
    )
    func changesBySequence(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let older = AcceptedNotification.fixture(token: token, acceptedAt: 1000)
                let olderSequence = try await store.accept(older)
                #expect(try await store.notification(older.id)?.sequence == olderSequence)
                let newer = AcceptedNotification.fixture(token: token, id: older.id, alert: "again", acceptedAt: 1001)
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

    @Test(
        "A change without a sequence applies to whichever notification holds the apns-id; an unknown one is skipped",
        arguments: StoreBackend.allCases
    )
    func changesByApnsID(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let older = AcceptedNotification.fixture(token: token, acceptedAt: 1000)
                try await store.accept(older)
                try await store.accept(AcceptedNotification.fixture(token: token, id: older.id, alert: "again", acceptedAt: 1001))
                let unknown = AcceptedNotification.fixture(token: token, acceptedAt: 1002)
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

    @Test("A change for a pruned sequence is skipped, not an error", arguments: StoreBackend.allCases)
    func changeForPrunedSequence(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let pruned = AcceptedNotification.fixture(token: token, acceptedAt: 1000)
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

    @Test("A change for an unknown apns-id is skipped; the rest of the batch is written", arguments: StoreBackend.allCases)
    func unknownIDsAreSkipped(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = AcceptedNotification.fixture(token: token)
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

    @Test("An apns-id in another case names the same notification", arguments: StoreBackend.allCases)
    func caseInsensitiveIDs(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let id = NotificationID("ABCDEF01-2345-4678-9ABC-DEF012345678")!
                try await store.accept(AcceptedNotification.fixture(token: token, id: id))
                let lower = NotificationID("abcdef01-2345-4678-9abc-def012345678")!
                try await store.record([DeliveryChange(notificationID: lower, event: .acknowledged, newState: .delivered, atMilliseconds: 9)])
                #expect(try await store.notification(id)?.state == .delivered)
                #expect(try await store.trace(id).map(\.kind) == [.accepted, .acknowledged])
            }
        }
    }

    @Test("A change the schema refuses fails the whole batch and writes nothing", arguments: StoreBackend.allCases)
    func invalidChangeFailsTheBatch(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = AcceptedNotification.fixture(token: token)
                let other = AcceptedNotification.fixture(token: token)
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

    @Test("A device's notifications: every token it was issued, newest first, within the limit", arguments: StoreBackend.allCases)
    func listByDevice(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let phone = try await store.addDevice(name: "phone").device
                let tablet = try await store.addDevice(name: "tablet").device
                let old = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let elsewhere = try await store.registerAppToken(deviceID: tablet.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let first = AcceptedNotification.fixture(token: old, alert: "first")
                try await store.accept(first)
                try await store.accept(AcceptedNotification.fixture(token: elsewhere, alert: "tablet"))
                try await store.unregister(old, atMilliseconds: SystemWallClock().nowMilliseconds())
                let renewed = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let second = AcceptedNotification.fixture(token: renewed, alert: "second")
                let third = AcceptedNotification.fixture(token: renewed, alert: "third")
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

@Suite("Delivery changes written together", .tier(.unit))
struct SQLiteStoreDeliveryCoalescingTests {
    /// What a store holds for a set of notifications: states, and traces without the token-bearing accepted details.
    struct Outcome: Equatable {
        var states: [NotificationState?]
        var traces: [[String]]
    }

    /// Accepts the same notifications (one `apns-id` reused) in a fresh store, applies `batches`, and reads back.
    static func outcome(of batches: [[DeliveryChange]], ids: [NotificationID], in directory: String) async throws -> Outcome {
        try await withStore(in: directory) { store in
            let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            for (index, id) in [ids[0], ids[1], ids[2], ids[0]].enumerated() {
                _ = try await store.accept(AcceptedNotification.fixture(token: token, id: id, alert: "n\(index)", acceptedAt: 1000 + Int64(index)))
            }
            for batch in batches { try await store.record(batch) }
            var outcome = Outcome(states: [], traces: [])
            for id in ids {
                outcome.states.append(try await store.notification(id)?.state)
                let trace = try await store.trace(id)
                #expect(trace.map(\.id) == (0..<trace.count).map { Int64($0 + 1) })
                outcome.traces.append(
                    trace.map { event in
                        let detail = event.kind == .accepted && event.detailJSON?.contains("\"token\"") == true ? "row" : event.detailJSON ?? "-"
                        return "\(event.atMilliseconds) \(event.kind) \(detail)"
                    }
                )
            }
            return outcome
        }
    }

    @Test("One batch leaves every trace and state exactly as the same changes written one at a time", arguments: 1...12)
    func batchEqualsOneByOne(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let ids = [NotificationID.random(), NotificationID.random(), NotificationID.random(), NotificationID.random()]
        // Sequences as accepted: 1 (ids[0], later replaced by its reuse), 2, 3, then 5 (ids[0] again; 4 was used up by
        // the conflicting first attempt).
        let targets: [(NotificationID, Int64?)] = [
            (ids[0], 1), (ids[0], 5), (ids[0], nil), (ids[1], 2), (ids[1], nil), (ids[2], 3), (ids[3], nil), (ids[3], 9),
        ]
        let events: [TraceEventKind] = [.stored, .sent, .acknowledged, .replaced, .displayed, .expired]
        let states: [NotificationState?] = [nil, nil, nil, .delivered, .replaced, .expired]
        var changes: [DeliveryChange] = []
        for step in 0..<40 {
            let (id, sequence) = targets[Int(random.next() % UInt64(targets.count))]
            changes.append(
                DeliveryChange(
                    notificationID: id,
                    sequence: sequence,
                    event: events[Int(random.next() % UInt64(events.count))],
                    newState: states[Int(random.next() % UInt64(states.count))],
                    atMilliseconds: 2000 + Int64(step),
                    detailJSON: random.next() % 2 == 0 ? nil : "{ \"step\" :\n \(step) }"
                )
            )
        }
        try await withTemporaryDirectory { together in
            try await withTemporaryDirectory { oneByOne in
                let batched = try await Self.outcome(of: [changes], ids: ids, in: together)
                let single = try await Self.outcome(of: changes.map { [$0] }, ids: ids, in: oneByOne)
                #expect(batched == single)
                #expect(batched.traces.joined().count > 20)
            }
        }
    }

    @Test("A device's stored and replaced events, interleaved across notifications, land in order with their states")
    func storedThenReplaced() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                var accepted: [(AcceptedNotification, Int64)] = []
                for index in 0..<4 {
                    let notification = AcceptedNotification.fixture(token: token, acceptedAt: 1000 + Int64(index))
                    accepted.append((notification, try await store.accept(notification)))
                }
                // The engine's pattern for an offline device: each new one stored, the one before replaced.
                var batch: [DeliveryChange] = []
                for (index, (notification, sequence)) in accepted.enumerated() {
                    batch.append(
                        DeliveryChange(
                            notificationID: notification.id,
                            sequence: sequence,
                            event: .stored,
                            atMilliseconds: 2000 + Int64(index),
                            detailJSON: #"{"reason":"device-offline"}"#
                        )
                    )
                    if index > 0 {
                        let (previous, previousSequence) = accepted[index - 1]
                        batch.append(
                            DeliveryChange(
                                notificationID: previous.id,
                                sequence: previousSequence,
                                event: .replaced,
                                newState: .replaced,
                                atMilliseconds: 2000 + Int64(index),
                                detailJSON: #"{"reason":"offline-storage-limit"}"#
                            )
                        )
                    }
                }
                try await store.record(batch)
                for (index, (notification, _)) in accepted.enumerated() {
                    let trace = try await store.trace(notification.id)
                    let last = index == accepted.count - 1
                    #expect(trace.map(\.kind) == (last ? [.accepted, .stored] : [.accepted, .stored, .replaced]))
                    #expect(trace.dropFirst().map(\.atMilliseconds) == (last ? [2000 + Int64(index)] : [2000 + Int64(index), 2001 + Int64(index)]))
                    #expect(try await store.notification(notification.id)?.state == (last ? .stored : .replaced))
                }
                #expect(try await store.pendingNotifications().map(\.notification.id) == [accepted[3].0.id])
            }
        }
    }

    @Test("A bad detail in a pair of changes still fails the whole batch")
    func badDetailInPair() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notification = AcceptedNotification.fixture(token: token)
                let sequence = try await store.accept(notification)
                let batch = [
                    DeliveryChange(notificationID: notification.id, sequence: sequence, event: .sent, atMilliseconds: 1),
                    DeliveryChange(notificationID: notification.id, sequence: sequence, event: .displayed, atMilliseconds: 2, detailJSON: "{oops"),
                ]
                await #expect(throws: StoreError.invalidRecord) { try await store.record(batch) }
                #expect(try await store.trace(notification.id).map(\.kind) == [.accepted])
            }
        }
    }
}

/// A small deterministic generator (a 64-bit LCG, high bits), so a failing seed fails the same way again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 29
    }
}
