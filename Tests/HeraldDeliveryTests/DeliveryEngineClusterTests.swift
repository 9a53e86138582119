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
}
