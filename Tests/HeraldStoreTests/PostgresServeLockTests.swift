import Foundation
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The serve lock of `herald serve` on PostgreSQL (docs/postgresql.md, "One server per database"): one single node or
/// cluster nodes, never both; released with the holder's session, taken again after a lost connection.
@Suite("PostgreSQL store: the serve lock", .serialized, .tier(.process))
struct PostgresServeLockTests {
    static func configuration(_ url: String, node: String? = nil) throws -> PostgresStore.Configuration {
        var configuration = try PostgresStore.Configuration(url: url)
        configuration.holdsServeLock = true
        if let node { configuration.cluster = try PostgresStore.Configuration.Cluster(nodeID: node) }
        return configuration
    }

    /// The refusal of opening a store with `configuration`, or `nil` (and a failed expectation) when it opened.
    static func refusal(_ configuration: PostgresStore.Configuration, sourceLocation: SourceLocation = #_sourceLocation) async -> ServeLockRefusal? {
        do {
            let store = try await PostgresStore.open(configuration: configuration)
            Issue.record("the store opened", sourceLocation: sourceLocation)
            await store.shutdown()
            return nil
        } catch {
            #expect(error is ServeLockRefusal, "\(error)", sourceLocation: sourceLocation)
            return error as? ServeLockRefusal
        }
    }

    /// Opens the store, trying again while the database still refuses it: a closed holder's session ends a moment
    /// after its connection.
    static func openWhenReleased(_ configuration: PostgresStore.Configuration) async throws -> PostgresStore {
        try await eventually("the serve lock released", within: .seconds(30), every: .milliseconds(100)) {
            do {
                return try await PostgresStore.open(configuration: configuration)
            } catch is ServeLockRefusal {
                return nil
            }
        }
    }

    /// The backend pids of the sessions holding the serve lock in the database of `url`, as psql reads them.
    static func holderSessions(_ url: String) throws -> [Int32] {
        let binaries = try PostgresBinaries.find()
        let sql = """
            SELECT l.pid FROM pg_locks AS l
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid::bigint = x'48455241'::bigint AND l.objid::bigint = x'4C445356'::bigint
            """
        let result = try ExternalProcess.runBlocking(binaries.psql, ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        #expect(result.succeeded, "\(result)")
        return result.stdout.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
    }

    @Test("A second single node is refused naming the first; a cluster node too; after the first closes, a new one opens")
    func singleNode() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let first = try await PostgresStore.open(configuration: try Self.configuration(url))
        let name = "pid \(ProcessInfo.processInfo.processIdentifier) on \(ProcessInfo.processInfo.hostName.prefix(32))"

        let second = try #require(await Self.refusal(try Self.configuration(url)))
        #expect(second.holders.map(\.applicationName) == ["herald serve \(name)"])
        #expect(second.holders.map(\.exclusive) == [true])
        #expect(
            second.description
                == "another herald serve (\(name)) is using the database \(url): stop it first, or run every node with --cluster (docs/cluster.md)"
        )
        let node = try #require(await Self.refusal(try Self.configuration(url, node: "node-a")))
        #expect(
            node.description
                == "a herald serve without --cluster (\(name)) is using the database \(url): stop it first, or run it with --cluster too (docs/cluster.md)"
        )
        // The CLI's commands take no lock: they open beside the server.
        let command = try await PostgresStore.open(configuration: try PostgresStore.Configuration(url: url))
        await command.shutdown()

        await first.shutdown()
        let next = try await Self.openWhenReleased(try Self.configuration(url))
        await next.shutdown()
    }

    @Test("Cluster nodes share the lock; a single node is refused naming them all")
    func clusterNodes() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let a = try await PostgresStore.open(configuration: try Self.configuration(url, node: "node-a"))
        let b = try await PostgresStore.open(configuration: try Self.configuration(url, node: "node-b"))
        let refused = try #require(await Self.refusal(try Self.configuration(url)))
        #expect(refused.holders.map(\.applicationName) == ["herald node node-a", "herald node node-b"])
        #expect(refused.holders.allSatisfy { !$0.exclusive })
        #expect(
            refused.description
                == "herald serve --cluster nodes (node-a, node-b) are using the database \(url): "
                + "run this one with --cluster too, or give it a database of its own (docs/cluster.md)"
        )
        await a.shutdown()
        await b.shutdown()
        let single = try await Self.openWhenReleased(try Self.configuration(url))
        await single.shutdown()
    }

    @Test("The holder's session ended by the database: the store takes the lock again on a new one, and still refuses a second")
    func lostConnection() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let store = try await PostgresStore.open(configuration: try Self.configuration(url))
        let before = try Self.holderSessions(url)
        #expect(before.count == 1)
        let binaries = try PostgresBinaries.find()
        let terminated = try ExternalProcess.runBlocking(
            binaries.psql,
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", "SELECT pg_terminate_backend(\(before.first ?? 0))"]
        )
        #expect(terminated.succeeded, "\(terminated)")
        // Taken again a second after the loss (the store tries each second): wait for a new session to hold it.
        var after: [Int32] = []
        try await eventually("a new session holds the lock", within: .seconds(30), every: .milliseconds(100)) {
            after = try Self.holderSessions(url)
            return !after.isEmpty && after != before
        }
        #expect(after.count == 1 && after != before, "\(before) \(after)")
        _ = await Self.refusal(try Self.configuration(url))
        await store.shutdown()
    }
}
