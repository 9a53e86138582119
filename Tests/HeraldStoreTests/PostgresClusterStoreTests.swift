import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

/// The cluster part of the PostgreSQL store (docs/cluster.md): routes, hand-offs inside group commit, what waits.
@Suite("PostgreSQL store: cluster routes and hand-offs", .tier(.process))
struct PostgresClusterStoreTests {
    /// A node's settings with a lease of ten minutes: nothing here writes heartbeats on its own, and a loaded machine
    /// (CI runs many suites at once) may take longer than the default 5 s between a test's heartbeat and its checks.
    static func node(_ id: String) throws -> PostgresStore.Configuration.Cluster {
        var cluster = try PostgresStore.Configuration.Cluster(nodeID: id)
        cluster.lease = .seconds(600)
        return cluster
    }

    /// Two nodes, "a" and "b", on one new database; both have written a heartbeat.
    func withTwoNodes(_ body: (PostgresStore, PostgresStore, String) async throws -> Void) async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        var configuration = try PostgresStore.Configuration(url: url)
        configuration.cluster = try Self.node("a")
        let a = try await PostgresStore.open(configuration: configuration)
        configuration.cluster = try Self.node("b")
        let b = try await PostgresStore.open(configuration: configuration)
        do {
            try await a.heartbeat()
            try await b.heartbeat()
            try await body(a, b, url)
        } catch {
            await a.shutdown()
            await b.shutdown()
            throw error
        }
        await a.shutdown()
        await b.shutdown()
    }

    func register(_ store: PostgresStore) async throws -> DeviceToken {
        try await store.registerToken(DeviceToken.random(), bundleID: "com.example.app", environment: .sandbox, deviceID: nil).token
    }

    @Test("A node id is 1 to 48 letters, digits, '.', '_', ':' or '-'")
    func nodeIDs() throws {
        for good in ["a", "host-1.example:2195", String(repeating: "n", count: 48)] {
            #expect(try PostgresStore.Configuration.Cluster(nodeID: good).nodeID == good)
        }
        for bad in ["", String(repeating: "n", count: 49), "a b", "node\"", "ünïcode"] {
            #expect(throws: StoreError.invalidRecord) { try PostgresStore.Configuration.Cluster(nodeID: bad) }
        }
    }

    @Test("Committed on A for a token routed to B: B is handed the sequences, in commit order, and reads the rows")
    func handOff() async throws {
        try await withTwoNodes { a, b, _ in
            let token = try await register(a)
            let handOffs = b.handOffs()
            let received = Mutex<[Int64]>([])
            let listener = Task { for await sequences in handOffs { received.withLock { $0 += sequences } } }
            defer { listener.cancel() }
            #expect(try await b.claimRoutes([token]).isEmpty)
            // The listener may start after the first commits: commit until a hand-off arrives, as a provider would.
            var sequences: [Int64] = []
            try await eventually("a hand-off arrives", every: .milliseconds(50)) {
                sequences.append(try await a.accept(AcceptedNotification.fixture(token: token, alert: "to b \(sequences.count)")))
                return !received.withLock { $0.isEmpty }
            }
            let listening = received.withLock { $0 }
            #expect(!listening.isEmpty && listening.allSatisfy(sequences.contains))
            // From now on every commit is handed off, in commit order.
            var later: [Int64] = []
            for index in 0..<3 { later.append(try await a.accept(AcceptedNotification.fixture(token: token, alert: "later \(index)"))) }
            try await eventually("every later commit handed off") { Set(later).isSubset(of: received.withLock { Set($0) }) }
            let handed = received.withLock { $0 }
            #expect(Array(handed.suffix(3)) == later, "\(handed)")
            let first = later
            let rows = try await b.storedNotifications(sequences: first)
            #expect(rows.map(\.sequence) == first)
            #expect(rows.allSatisfy { $0.notification.token == token })
            // Routed: A traced nothing beyond `accepted` (B's engine traces what it does).
            let trace = try await a.trace(try #require(rows.first).notification.id)
            #expect(trace.map(\.kind) == [.accepted])
        }
    }

    @Test("Committed for a token no live node holds: traced stored (device-offline); apns-expiration 0 is expired at once")
    func unrouted() async throws {
        try await withTwoNodes { a, _, _ in
            let token = try await register(a)
            let kept = AcceptedNotification.fixture(token: token)
            var zero = AcceptedNotification.fixture(token: token)
            zero.expiration = 0
            var dated = AcceptedNotification.fixture(token: token)
            dated.expiration = 1_900_000_000
            _ = try await a.accept(kept)
            _ = try await a.accept(zero)
            _ = try await a.accept(dated)
            let keptTrace = try await a.trace(kept.id)
            #expect(keptTrace.map(\.kind) == [.accepted, .stored])
            #expect(keptTrace.last?.detailJSON == #"{"reason":"device-offline"}"#)
            #expect(try await a.trace(dated.id).last?.detailJSON == #"{"reason":"device-offline","expiresAt":1900000000000}"#)
            #expect(try await a.notification(zero.id)?.state == .expired)
            #expect(try await a.trace(zero.id).last?.detailJSON == #"{"reason":"expiration-zero-offline"}"#)
            #expect(try await a.notification(kept.id)?.state == .stored)
        }
    }

    @Test("Claiming routes returns what waits for the tokens, oldest first; the sweep reads what waits for the node's tokens")
    func claimAndSweep() async throws {
        try await withTwoNodes { a, b, _ in
            let token = try await register(a)
            let other = try await register(a)
            let first = try await a.accept(AcceptedNotification.fixture(token: token, alert: "1"))
            let second = try await a.accept(AcceptedNotification.fixture(token: token, alert: "2"))
            _ = try await a.accept(AcceptedNotification.fixture(token: other, alert: "elsewhere"))
            #expect(try await b.claimRoutes([token, token]).map(\.sequence) == [first, second])
            #expect(try await b.storedForRoutedTokens().map(\.sequence) == [first, second])
            #expect(try await a.storedForRoutedTokens().isEmpty)
            // A takes the token over (the device moved): B's release does not remove A's route.
            _ = try await a.claimRoutes([token])
            try await b.releaseRoutes([token])
            #expect(try await a.storedForRoutedTokens().map(\.sequence) == [first, second])
            #expect(try await b.storedForRoutedTokens().isEmpty)
            try await a.releaseRoutes([token])
            #expect(try await a.storedForRoutedTokens().isEmpty)
        }
    }

    @Test("A node that left (or whose lease ran out) holds nothing: what is committed for its tokens is stored")
    func leaseAndLeave() async throws {
        try await withTwoNodes { a, b, url in
            let token = try await register(a)
            _ = try await b.claimRoutes([token])
            try await b.leave()
            let afterLeave = AcceptedNotification.fixture(token: token)
            _ = try await a.accept(afterLeave)
            #expect(try await a.trace(afterLeave.id).map(\.kind) == [.accepted, .stored])
            #expect(try await b.storedForRoutedTokens().isEmpty, "leaving removed the routes")

            // A lease that ran out: the route is there, the heartbeat is old.
            _ = try await b.claimRoutes([token])
            try psql(url, "UPDATE node SET heartbeat_at = now() - interval '1 hour' WHERE id = 'b'")
            let afterLease = AcceptedNotification.fixture(token: token)
            _ = try await a.accept(afterLease)
            #expect(try await a.trace(afterLease.id).map(\.kind) == [.accepted, .stored])
            // Its heartbeat makes it alive again.
            try await b.heartbeat()
            let alive = AcceptedNotification.fixture(token: token)
            _ = try await a.accept(alive)
            #expect(try await a.trace(alive.id).map(\.kind) == [.accepted])
        }
    }

    @Test("A node knows from memory whether it holds its lease: not before its first heartbeat, then until it runs out or it leaves")
    func holdsLease() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        var configuration = try PostgresStore.Configuration(url: url)
        let single = try await PostgresStore.open(configuration: configuration)
        #expect(!single.holdsLease, "a store that is no cluster node holds no lease")
        await single.shutdown()
        configuration.cluster = try Self.node("a")
        let a = try await PostgresStore.open(configuration: configuration)
        var brief = try PostgresStore.Configuration.Cluster(nodeID: "b")
        brief.lease = .milliseconds(500)
        configuration.cluster = brief
        let b = try await PostgresStore.open(configuration: configuration)
        do {
            #expect(!a.holdsLease, "before its first heartbeat")
            try await a.heartbeat()
            #expect(a.holdsLease)
            // B writes no heartbeat after its first: its lease runs out half a second after that one began.
            try await b.heartbeat()
            try await eventually("B's lease runs out") { !b.holdsLease }
            #expect(a.holdsLease, "A's lease of ten minutes did not")
            try await a.leave()
            #expect(!a.holdsLease, "a node that left")
        } catch {
            await a.shutdown()
            await b.shutdown()
            throw error
        }
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A node's first heartbeat drops the routes a previous run of it left")
    func restartDropsStaleRoutes() async throws {
        try await withTwoNodes { a, _, url in
            let token = try await register(a)
            _ = try await a.claimRoutes([token])
            _ = try await a.accept(AcceptedNotification.fixture(token: token))
            #expect(try await a.storedForRoutedTokens().count == 1)
            var configuration = try PostgresStore.Configuration(url: url)
            configuration.cluster = try Self.node("a")
            let restarted = try await PostgresStore.open(configuration: configuration)
            try await restarted.heartbeat()
            #expect(try await restarted.storedForRoutedTokens().isEmpty)
            await restarted.shutdown()
        }
    }

    @Test("An unregistered token's waiting notifications are discarded unless a live node holds the token")
    func discardUnrouted() async throws {
        try await withTwoNodes { a, b, _ in
            let token = try await register(a)
            let waiting = AcceptedNotification.fixture(token: token)
            _ = try await a.accept(waiting)
            _ = try await b.claimRoutes([token])
            #expect(try await a.discardUnrouted(token: token, atMilliseconds: 1_700_000_000_500) == 0, "B holds it")
            try await b.releaseRoutes([token])
            #expect(try await a.discardUnrouted(token: token, atMilliseconds: 1_700_000_000_500) == 1)
            #expect(try await b.discardUnrouted(token: token, atMilliseconds: 1_700_000_000_600) == 0, "once")
            #expect(try await a.notification(waiting.id)?.state == .discarded)
            #expect(try await a.trace(waiting.id).last?.detailJSON == #"{"reason":"token-unregistered"}"#)
        }
    }

    @Test("What waits for a device no live node holds expires once its time is up; what a node holds is its engine's")
    func expiryOfUnheld() async throws {
        try await withTwoNodes { a, b, _ in
            let offline = try await register(a)
            let held = try await register(a)
            let now: Int64 = 1_700_000_100_000
            var past = AcceptedNotification.fixture(token: offline)
            past.expiration = (now - 1000) / 1000
            var future = AcceptedNotification.fixture(token: offline)
            future.expiration = (now + 60_000) / 1000
            let old = AcceptedNotification.fixture(token: offline, acceptedAt: now - 10_000)
            let recent = AcceptedNotification.fixture(token: offline, acceptedAt: now - 10)
            var heldPast = AcceptedNotification.fixture(token: held)
            heldPast.expiration = (now - 1000) / 1000
            _ = try await b.claimRoutes([held])
            for notification in [past, future, old, recent, heldPast] { _ = try await a.accept(notification) }
            #expect(try await a.expireUnrouted(nowMilliseconds: now, defaultStorageMilliseconds: 5_000, limit: 1000) == 2)
            #expect(try await a.notification(past.id)?.state == .expired)
            #expect(try await a.notification(old.id)?.state == .expired)
            #expect(try await a.trace(old.id).last?.detailJSON == #"{"reason":"expired"}"#)
            for waiting in [future, recent, heldPast] { #expect(try await a.notification(waiting.id)?.state == .stored) }
            #expect(try await b.expireUnrouted(nowMilliseconds: now, defaultStorageMilliseconds: 5_000, limit: 1000) == 0, "once")
        }
    }

    private func psql(_ url: String, _ sql: String) throws {
        let binaries = try PostgresBinaries.find()
        let result = try ExternalProcess.runBlocking(binaries.psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        #expect(result.succeeded, "\(result)")
    }
}

@Suite("PostgreSQL store: an operation's deadline", .tier(.unit))
struct OperationDeadlineTests {
    /// A continuation nobody resumes until the test says so: an operation that ignores cancellation.
    final class Stuck: Sendable {
        private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let released = Mutex(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = released.withLock { released in
                    if !released { self.continuation.withLock { $0 = continuation } }
                    return released
                }
                if now { continuation.resume() }
            }
        }

        func release() {
            released.withLock { $0 = true }
            continuation.withLock { $0 }?.resume()
        }
    }

    @Test("An operation that does not stop when cancelled: the caller still gets unavailable at the deadline")
    func stuckOperation() async throws {
        let stuck = Stuck()
        let finished = Mutex(false)
        await #expect(throws: StoreError.unavailable) {
            try await OperationDeadline.run(timeout: .milliseconds(200)) {
                await stuck.wait()
                finished.withLock { $0 = true }
                return 1
            }
        }
        #expect(!finished.withLock { $0 }, "the caller was answered while the operation still ran")
        stuck.release()
    }

    @Test("An operation that answers in time: its value, or its error")
    func answersInTime() async throws {
        #expect(try await OperationDeadline.run(timeout: .seconds(30)) { 42 } == 42)
        await #expect(throws: StoreError.invalidRecord) {
            try await OperationDeadline.run(timeout: .seconds(30)) { () async throws -> Int in throw StoreError.invalidRecord }
        }
    }
}
