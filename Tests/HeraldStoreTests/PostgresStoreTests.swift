import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Testing

/// What only the PostgreSQL store has: its URL, its migrations across nodes, and a database that goes away.
@Suite("PostgreSQL store: configuration, migrations, outages", .tier(.process))
struct PostgresStoreTests {
    @Test("A database URL: defaults, sslmode, a Unix socket folder; anything else is refused with what is wrong")
    func configuration() throws {
        let plain = try PostgresStore.Configuration(url: "postgres://herald:s3cret@db.example:6543/push?sslmode=require")
        #expect(plain.redactedDescription == "postgres://herald:***@db.example:6543/push?sslmode=require")
        #expect(!plain.redactedDescription.contains("s3cret"))
        let defaults = try PostgresStore.Configuration(url: "postgresql://localhost")
        #expect(defaults.redactedDescription == "postgresql://localhost")
        _ = try PostgresStore.Configuration(url: "postgres://herald@/push?host=/var/run/postgresql")
        for bad in ["mysql://localhost/db", "postgres://localhost/db?sslmode=verify-full", "postgres:///db", "not a url", "postgres://h:99999/db"] {
            #expect(throws: StoreError.invalidRecord) { try PostgresStore.Configuration(url: bad) }
        }
    }

    @Test("Migrations are named and run once, also when several nodes open the database at the same moment")
    func migrations() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let configuration = try PostgresStore.Configuration(url: url)
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresStore.open(configuration: configuration) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 3)
        let token = try await stores[0].registerToken(DeviceToken.random(), bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
        #expect(try stores[2].lookup(token.token) == token)
        for store in stores { await store.shutdown() }
        let reopened = try await PostgresStore.open(configuration: configuration)
        #expect(try await reopened.counts().deviceTokens == 1)
        await reopened.shutdown()

        // A database migrated by a newer Herald (a migration this one does not know) is refused.
        try psql(url, "INSERT INTO herald_migration (name) VALUES ('9999-from-the-future')")
        await #expect(throws: StoreError.newerSchema) { try await PostgresStore.open(configuration: configuration) }
    }

    @Test("The database goes away: calls fail with unavailable within the timeout; once back, work goes on and nothing acknowledged is lost")
    func outage() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let forwarder = try TCPForwarder(toLoopbackPort: try PostgresTestServer.port())
        var configuration = try PostgresStore.Configuration(url: PostgresTestServer.url(url, port: forwarder.port))
        // Short enough to wait for a few times, long enough for the work before the cut on a busy machine: with the
        // whole suite running in parallel on two cores a commit before the cut once took more than 3 s (stop 32's CI).
        configuration.operationTimeout = .seconds(10)
        configuration.registryQueryTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(1)
        let store = try await PostgresStore.open(configuration: configuration)
        let token = try await store.registerToken(DeviceToken.random(), bundleID: "com.example.app", environment: .sandbox, deviceID: nil).token
        for index in 0..<5 { try await store.accept(AcceptedNotification.fixture(token: token, alert: "before \(index)")) }

        forwarder.cut()
        let started = ContinuousClock.now
        let refused = await enqueueAndWait(store, AcceptedNotification.fixture(token: token, alert: "during"))
        #expect(refused == .failure(.unavailable))
        // Within the timeout and a margin for a busy machine, not a hang.
        #expect(started.duration(to: .now) < .seconds(30))
        await #expect(throws: StoreError.unavailable) { try await store.counts() }
        // The token was cached: the gateway's lookup still answers (stale rather than nothing). One it never saw cannot
        // be answered, at once (the registry remembers that the database did not answer a moment ago).
        #expect(try store.lookup(token)?.token == token)
        #expect(throws: StoreError.unavailable) { try store.lookup(DeviceToken.random()) }
        let failedFast = ContinuousClock.now
        #expect(throws: StoreError.unavailable) { try store.lookup(DeviceToken.random()) }
        #expect(failedFast.duration(to: .now) < .milliseconds(500))

        try forwarder.restore()
        try await eventually("a notification accepted once the database is back", within: .seconds(60), every: .milliseconds(200)) {
            try? await enqueueAndWait(store, AcceptedNotification.fixture(token: token, alert: "after")).get()
        }
        let pending = try await store.pendingNotifications()
        #expect(pending.filter { String(decoding: $0.notification.payload, as: UTF8.self).contains("before") }.count == 5)
        #expect(!pending.contains { String(decoding: $0.notification.payload, as: UTF8.self).contains("during") })
        await store.shutdown()
    }

    @Test("Opening a database that cannot be reached fails with unavailable, not a hang")
    func unreachable() async throws {
        let forwarder = try TCPForwarder(toLoopbackPort: try PostgresTestServer.port())
        forwarder.cut()
        var configuration = try PostgresStore.Configuration(url: "postgres://postgres@127.0.0.1:\(forwarder.port)/postgres?sslmode=disable")
        configuration.connectTimeout = .seconds(1)
        await #expect(throws: StoreError.unavailable) { try await PostgresStore.open(configuration: configuration) }
    }

    private func psql(_ url: String, _ sql: String) throws {
        let binaries = try PostgresBinaries.find()
        let result = try ExternalProcess.runBlocking(binaries.psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        #expect(result.succeeded, "\(result)")
    }
}
