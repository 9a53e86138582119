import ArgumentParser
import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `--database` on the commands that use the store: they work on PostgreSQL as on the data directory's file.
@Suite("--database: the CLI's commands on PostgreSQL", .tier(.process))
struct DatabaseOptionTests {
    static func withDatabase<T>(_ body: (String, PostgresStore) async throws -> T) async throws -> T {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let store = try await PostgresStore.open(configuration: try PostgresStore.Configuration(url: url))
        do {
            let result = try await body(url, store)
            await store.shutdown()
            return result
        } catch {
            await store.shutdown()
            throw error
        }
    }

    @Test("apps, tokens and notifications prune write and read the database, with no data directory at all")
    func commands() async throws {
        try await Self.withDatabase { url, store in
            let nowhere = "/nonexistent/herald-data-\(UUID().uuidString)"
            try await AppsCommand.Add.parse(["com.example.cli", "--team", "TEAMCLI", "--database", url, "--data-dir", nowhere]).run()
            #expect(try await store.apps().map(\.bundleID) == ["com.example.cli"])
            try await AppsCommand.Remove.parse(["com.example.cli", "--database", url]).run()
            #expect(try await store.apps().isEmpty)

            try await TokensCommand.Register.parse(["--topic", "com.example.cli", "--database", url]).run()
            let counts = try await store.counts()
            #expect(counts.deviceTokens == 1 && counts.activeDeviceTokens == 1)

            let token = try await store.registerToken(DeviceToken.random(), bundleID: "com.example.cli", environment: .sandbox, deviceID: nil)
            let delivered = AcceptedNotification.fixture(
                token: token.token,
                topic: "com.example.cli",
                bundleID: "com.example.cli",
                alert: "x",
                acceptedAt: 1_000
            )
            var waiting = delivered
            waiting.id = .random()
            try await store.accept(delivered)
            try await store.accept(waiting)
            try await store.record([DeliveryChange(notificationID: delivered.id, event: .acknowledged, newState: .delivered, atMilliseconds: 2_000)])
            try await NotificationsCommand.Prune.parse(["--database", url]).run()
            #expect(try await store.notification(delivered.id) == nil)
            #expect(try await store.notification(waiting.id)?.state == .stored)
            #expect(try await store.trace(delivered.id).isEmpty)
            await #expect(throws: ExitCode.failure) { try await NotificationsCommand.Prune.parse(["--database", url, "--vacuum"]).run() }
        }
    }

    @Test("HERALD_DATABASE_URL names the database; a URL that is not postgres:// is refused in one line")
    func environmentAndBadURL() async throws {
        let data = try DataDirectoryOptions.parse(["--database", "postgres://u@h/d"])
        #expect(data.databaseURL == "postgres://u@h/d")
        #expect(
            try DataDirectoryOptions.parse([]).databaseURL
                == ProcessInfo.processInfo.environment["HERALD_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        )
        let serve = try ServeCommand.parse(["--database", "mysql://localhost/db"])
        #expect(throws: CLIFailure.self) { try serve.makeConfiguration() }
        let good = try ServeCommand.parse(["--database", "postgres://herald:pw@db:5433/push"])
        #expect(try good.makeConfiguration().database?.redactedDescription == "postgres://herald:***@db:5433/push")
    }
}
