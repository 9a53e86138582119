import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

@testable import HeraldDelivery

/// A cluster node's shared store as the engine sees it, in memory: rows to hand off, nothing routed, no other node.
final class HandOffClusterStore: ClusterStore {
    let nodeID = "node-a"
    private let rows = Mutex<[Int64: StoredNotification]>([:])
    private let stream: AsyncStream<[Int64]>
    private let input: AsyncStream<[Int64]>.Continuation

    init() {
        (stream, input) = AsyncStream.makeStream(of: [Int64].self)
    }

    /// Another node committed this row for a token routed here and says so.
    func handOff(_ row: StoredNotification) {
        rows.withLock { $0[row.sequence] = row }
        input.yield([row.sequence])
    }

    func claimRoutes(_ tokens: [DeviceToken]) async throws -> [StoredNotification] { [] }
    func releaseRoutes(_ tokens: [DeviceToken]) async throws {}
    func storedForRoutedTokens() async throws -> [StoredNotification] { [] }
    func storedNotifications(sequences: [Int64]) async throws -> [StoredNotification] {
        rows.withLock { rows in sequences.compactMap { rows[$0] } }
    }
    func heartbeat() async throws {}
    func expireUnrouted(nowMilliseconds: Int64, defaultStorageMilliseconds: Int64, limit: Int) async throws -> Int { 0 }
    func deviceNodes(deviceID: String?) async throws -> [String: [String]] { [:] }
    func leave() async throws { input.finish() }
    func handOffs() -> AsyncStream<[Int64]> { stream }
    func discardUnrouted(token: DeviceToken, atMilliseconds: Int64) async throws -> Int { 0 }
}

/// A cluster node's shared store where rows waited for an offline token, and the periodic sweep reads them between the
/// route write and the claim's answer: the claim answers only once a sweep has returned the rows (the order a loaded
/// machine gave in a cluster end-to-end test).
final class SlowClaimClusterStore: ClusterStore {
    let nodeID = "node-b"
    private let waiting: [StoredNotification]
    private let state = Mutex<(routed: Bool, sweptAfterRoute: Bool)>((false, false))

    init(waiting: [StoredNotification]) { self.waiting = waiting }

    func claimRoutes(_ tokens: [DeviceToken]) async throws -> [StoredNotification] {
        state.withLock { $0.routed = true }
        // The route is written; the answer comes once a sweep has seen it (or after 10 s).
        for _ in 0..<1000 where !state.withLock({ $0.sweptAfterRoute }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return waiting
    }
    func releaseRoutes(_ tokens: [DeviceToken]) async throws {}
    func storedForRoutedTokens() async throws -> [StoredNotification] {
        state.withLock { state in
            guard state.routed else { return [] }
            state.sweptAfterRoute = true
            return waiting
        }
    }
    func storedNotifications(sequences: [Int64]) async throws -> [StoredNotification] { [] }
    func heartbeat() async throws {}
    func expireUnrouted(nowMilliseconds: Int64, defaultStorageMilliseconds: Int64, limit: Int) async throws -> Int { 0 }
    func deviceNodes(deviceID: String?) async throws -> [String: [String]] { [:] }
    func leave() async throws {}
    func handOffs() -> AsyncStream<[Int64]> { AsyncStream { $0.finish() } }
    func discardUnrouted(token: DeviceToken, atMilliseconds: Int64) async throws -> Int { 0 }
}

@Suite("Delivery engine on a cluster node (a test double of the shared store)", .tier(.unit))
struct DeliveryEngineClusterTests {
    @Test("The gateway's word about a row the node already took from the store and finished is not a second send")
    func acceptedAfterFinished() async throws {
        let store = InMemoryDeliveryStore()
        let cluster = HandOffClusterStore()
        let token = DeviceToken.random()
        try await withRunningEngine(store: store, cluster: cluster) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            // The store's word first: a hand-off of the committed row (sequence 7), sent and acknowledged.
            cluster.handOff(StoredNotification(sequence: 7, notification: notification, state: .stored))
            try await withDeadline("the handed-off row sent", within: .seconds(60)) { await session.waitForDeliveries(count: 1) }
            engine.acknowledged(notification.id, session: session.id)
            await engine.waitUntilIdle()
            #expect(engine.counts == DeliveryCounts(pending: 0, outstanding: 0))
            // Then the gateway's word about the same commit.
            engine.accepted(notification, sequence: 7)
            await engine.waitUntilIdle()
            #expect(session.deliveries == [NotificationDelivery(notification: notification, attempt: 1)], "sent once")
            #expect(session.refusals.isEmpty)
            #expect(engine.counts == DeliveryCounts(pending: 0, outstanding: 0))
            let changes = await store.changes
            #expect(changes.kinds == [.sent, .acknowledged])
            #expect(changes.compactMap(\.sequence) == [7, 7])

            // A provider reusing the apns-id commits a new row (a newer sequence): that one is sent.
            engine.accepted(notification, sequence: 8)
            await engine.waitUntilIdle()
            #expect(session.deliveries.count == 2)
        }
    }

    @Test("A sweep that reads what waited before the connection's claim answers does not send it as arrivals: the offline rules apply")
    func sweepDuringClaim() async throws {
        let store = InMemoryDeliveryStore()
        let token = DeviceToken.random()
        let older = AcceptedNotification.fixture(token: token, alert: "older")
        let middle = AcceptedNotification.fixture(token: token, alert: "middle")
        let newest = AcceptedNotification.fixture(token: token, alert: "newest")
        let cluster = SlowClaimClusterStore(waiting: [
            StoredNotification(sequence: 1, notification: older, state: .stored),
            StoredNotification(sequence: 2, notification: middle, state: .stored),
            StoredNotification(sequence: 3, notification: newest, state: .stored),
        ])
        var configuration = DeliveryEngine.Configuration.forTests
        configuration.sweepInterval = .milliseconds(5)
        try await withRunningEngine(store: store, configuration: configuration, cluster: cluster) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            try await withDeadline("the newest sent", within: .seconds(60)) { await session.waitForDeliveries(count: 1) }
            // Further sweeps return the same rows (the double never learns their new states): none is sent.
            try await Task.sleep(for: .milliseconds(100))
            await engine.waitUntilIdle()
            #expect(session.deliveries.map(\.notification.id) == [newest.id])
            let changes = await store.changes
            for replaced in [older, middle] {
                let change = try #require(changes.of(replaced.id).first, "\(changes)")
                #expect(change.newState == .replaced)
                #expect(change.detailJSON?.contains(#""reason":"offline-storage-limit""#) == true, "\(change)")
            }
        }
    }
}
