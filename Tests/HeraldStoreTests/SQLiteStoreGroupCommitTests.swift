import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

@testable import HeraldStore

@Suite("Group commit of accepted notifications", .tier(.unit))
struct SQLiteStoreGroupCommitTests {
    @Test("An accepted notification survives closing and reopening, with its accepted event")
    func durability() async throws {
        try await withTemporaryDirectory { directory in
            let notification = try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: "phone-1")
                let notification = AcceptedNotification.fixture(token: token, id: NotificationID("6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A")!)
                try await store.accept(notification)
                return notification
            }
            try await withStore(in: directory) { store in
                let stored = try #require(try await store.notification(NotificationID(notification.id.key)!))
                #expect(stored.notification == notification)
                #expect(stored.notification.id.text == "6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A")
                #expect(stored.state == .stored)
                let trace = try await store.trace(notification.id)
                #expect(trace.map(\.kind) == [.accepted])
                #expect(trace.first?.notificationKey == notification.id.key)
                #expect(trace.first?.detailJSON?.contains(notification.token.hex) == true)
            }
        }
    }

    @Test("A reused apns-id replaces the older notification and the trace says so")
    func duplicateIDReplaces() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let id = NotificationID.random()
                try await store.accept(AcceptedNotification.fixture(token: token, id: id, alert: "first", acceptedAt: 1000))
                let other = AcceptedNotification.fixture(token: token, alert: "other", acceptedAt: 1500)
                // The duplicate and a distinct notification in flight together: neither fails the other.
                async let second = enqueueAndWait(store, AcceptedNotification.fixture(token: token, id: id, alert: "second", acceptedAt: 2000))
                async let third = enqueueAndWait(store, other)
                let results = await [second, third]
                #expect(results.allSatisfy { (try? $0.get()) != nil })

                let stored = try #require(try await store.notification(id))
                #expect(String(decoding: stored.notification.payload, as: UTF8.self).contains("second"))
                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted, .replaced, .accepted])
                #expect(trace[1].detailJSON?.contains("duplicate-apns-id") == true)
                #expect(try await store.counts().notifications == 2)
            }
        }
    }

    @Test("Every column and the trace details are stored exactly as given, escaping and binary payloads included")
    func exactValues() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .production, deviceID: nil)
                let id = NotificationID("6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A")!
                let notification = AcceptedNotification(
                    id: id,
                    token: token,
                    topic: "com.example.\"odd\\topic\u{1}",
                    bundleID: "com.example.app",
                    environment: .production,
                    pushType: .background,
                    priority: .powerConsiderate,
                    expiration: 1_700_000_123,
                    collapseID: "résumé-🔔",
                    payload: [0x7B, 0x00, 0xFF, 0x0A, 0x7D],
                    acceptedAtMilliseconds: 1_700_000_000_042
                )
                try await store.accept(notification)
                let stored = try #require(try await store.notification(id))
                #expect(stored.notification == notification)
                #expect(stored.sequence == 1)
                let plain = AcceptedNotification.fixture(token: token, acceptedAt: 7)
                try await store.accept(plain)
                #expect(try await store.notification(plain.id)?.notification == plain)

                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted])
                #expect(trace.first?.notificationKey == "6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a")
                #expect(trace.first?.atMilliseconds == 1_700_000_000_042)
                #expect(trace.first?.detailJSON == #"{"seq":1,"token":"\#(token.hex)","topic":"com.example.\"odd\\topic\u0001"}"#)

                // A reused apns-id: the older row's history keeps its own accepted detail, then the replaced event and
                // the new accepted event.
                // The new row gets 4: the first attempt (`ON CONFLICT DO NOTHING`) used up 3, and AUTOINCREMENT never reuses.
                var again = notification
                again.acceptedAtMilliseconds = 1_700_000_000_099
                try await store.accept(again)
                let details = try await store.trace(id).map(\.detailJSON)
                #expect(
                    details == [
                        #"{"seq":1,"token":"\#(token.hex)","topic":"com.example.\"odd\\topic\u0001"}"#,
                        #"{"reason":"duplicate-apns-id","previousSeq":1,"previousState":"stored","replacedBySeq":4}"#,
                        #"{"seq":4,"token":"\#(token.hex)","topic":"com.example.\"odd\\topic\u0001"}"#,
                    ]
                )
                #expect(try await store.notification(id)?.sequence == 4)
            }
        }
    }

    @Test("A notification that breaks a rule fails alone; the rest of its batch commits")
    func badNotificationFailsAlone() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let notifications = [
                    AcceptedNotification.fixture(token: token),
                    AcceptedNotification.fixture(token: DeviceToken.random()),
                    AcceptedNotification.fixture(token: token, collapseID: String(repeating: "c", count: 65)),
                    AcceptedNotification.fixture(token: token),
                    AcceptedNotification.fixture(token: DeviceToken.random()),
                    AcceptedNotification.fixture(token: token),
                ]
                // Hold the writer so that all six are queued, in order, and commit in one transaction.
                let release = DispatchSemaphore(value: 0)
                store.pool.asyncWriteWithoutTransaction { _ in _ = release.wait(timeout: .now() + 10) }
                let (results, resultsDone) = AsyncStream.makeStream(of: (Int, Result<Int64, StoreError>).self)
                for (index, notification) in notifications.enumerated() {
                    store.enqueue(notification) { resultsDone.yield((index, $0)) }
                }
                release.signal()
                var failures: [Int: StoreError?] = [:]
                var sequences: [Int: Int64] = [:]
                for await (index, result) in results {
                    failures[index] = result.failure
                    if case .success(let sequence) = result { sequences[index] = sequence }
                    if failures.count == notifications.count { break }
                }
                // Each success completes with the sequence its row got.
                for (index, sequence) in sequences {
                    #expect(try await store.notification(notifications[index].id)?.sequence == sequence)
                }
                #expect(sequences.keys.sorted() == [0, 3, 5])
                #expect(failures[0] == .some(nil))
                #expect(failures[1] == .unknownDeviceToken)
                #expect(failures[2] == .invalidRecord)
                #expect(failures[3] == .some(nil))
                #expect(failures[4] == .unknownDeviceToken)
                #expect(failures[5] == .some(nil))
                #expect(store.commitStatistics.withLock { $0.batches } == 1)
                let counts = try await store.counts()
                #expect(counts.notifications == 3)
                #expect(counts.traceEvents == 3)
            }
        }
    }

    @Test("20,000 notifications from several threads are all committed, in far fewer transactions")
    func throughputUnderConcurrency() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                var tokens: [DeviceToken] = []
                for index in 0..<100 {
                    tokens.append(try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: "d\(index)"))
                }
                let total = 20_000
                let threads = 8
                let notifications = (0..<total).map { AcceptedNotification.fixture(token: tokens[$0 % tokens.count], acceptedAt: Int64($0)) }
                let tally = Mutex((succeeded: 0, failed: 0))
                let start = ContinuousClock.now
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let finish: @Sendable (Result<Int64, StoreError>) -> Void = { result in
                        let finished = tally.withLock { tally in
                            if case .success = result { tally.succeeded += 1 } else { tally.failed += 1 }
                            return tally.succeeded + tally.failed == total
                        }
                        if finished { done.resume() }
                    }
                    for thread in 0..<threads {
                        let slice = Array(notifications[(thread * total / threads)..<((thread + 1) * total / threads)])
                        Thread.detachNewThread {
                            for notification in slice { store.enqueue(notification, completion: finish) }
                        }
                    }
                }
                let elapsed = ContinuousClock.now - start
                let statistics = store.commitStatistics.withLock { $0 }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                print(
                    "group commit: \(total) notifications from \(threads) threads in \(elapsed)"
                        + " (\(Int(Double(total) / seconds)) notifications/s, synchronous=FULL);"
                        + " \(statistics.batches) transactions, largest \(statistics.largestBatch)"
                )
                #expect(tally.withLock { $0 } == (succeeded: total, failed: 0))
                let counts = try await store.counts()
                #expect(counts.notifications == total)
                #expect(counts.traceEvents == total)
                #expect(statistics.notifications == total)
                #expect(statistics.batches < total / 10)
                let newest = try await store.listNotifications(token: nil, limit: 1)
                #expect(newest.first?.sequence == Int64(total))
            }
        }
    }

    @Test("Shutdown commits what was queued, then refuses new work")
    func shutdownDrains() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = SQLiteStore.Configuration(dataDirectory: directory)
            configuration.synchronous = .normal
            let store = try SQLiteStore(configuration: configuration)
            let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            let committed = Mutex(0)
            for _ in 0..<500 {
                store.enqueue(AcceptedNotification.fixture(token: token)) { result in
                    if case .success = result { committed.withLock { $0 += 1 } }
                }
            }
            await store.shutdown()
            #expect(committed.withLock { $0 } == 500)
            let late = await enqueueAndWait(store, AcceptedNotification.fixture(token: token))
            #expect(late.failure == .shutDown)
            #expect(throws: StoreError.shutDown) { try store.lookup(token) }
            await store.shutdown()  // a second call returns at once

            try await withStore(in: directory) { reopened in
                let counts = try await reopened.counts()
                #expect(counts.notifications == 500)
            }
        }
    }

    @Test("A full queue answers overloaded at once instead of growing")
    func overloaded() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, configure: { $0.maximumPendingNotifications = 1 }) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                // Hold the writer queue so that the first notification waits and the queue stays full.
                let release = DispatchSemaphore(value: 0)
                store.pool.asyncWriteWithoutTransaction { _ in _ = release.wait(timeout: .now() + 10) }
                let (firstResult, firstDone) = AsyncStream.makeStream(of: Result<Int64, StoreError>.self)
                store.enqueue(AcceptedNotification.fixture(token: token)) { result in
                    firstDone.yield(result)
                    firstDone.finish()
                }
                var rejections: [StoreError] = []
                for _ in 0..<4 {
                    if case .failure(let error) = await enqueueAndWait(store, AcceptedNotification.fixture(token: token)) { rejections.append(error) }
                }
                release.signal()
                #expect(rejections == Array(repeating: .overloaded, count: 4))
                let first = await firstResult.first { _ in true }
                #expect(first.map { $0.failure == nil } == true)
                #expect(await enqueueAndWait(store, AcceptedNotification.fixture(token: token)).failure == nil)
            }
        }
    }
}

extension Result where Failure == StoreError {
    /// The error of a failed result, `nil` on success.
    var failure: StoreError? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
