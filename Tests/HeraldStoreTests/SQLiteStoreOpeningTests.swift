import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Opening the SQLite store", .tier(.unit))
struct SQLiteStoreOpeningTests {
    @Test("Creates the data directory and the file, in WAL mode with the configured pragmas")
    func pragmas() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/nested/data"
            try await withStore(in: directory) { store in
                #expect(FileManager.default.fileExists(atPath: directory + "/herald.sqlite"))
                let pragmas = try await store.pool.write { db in
                    (
                        try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                        try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                        try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                        try Int.fetchOne(db, sql: "PRAGMA busy_timeout")
                    )
                }
                #expect(pragmas.0 == "wal")
                #expect(pragmas.1 == 2)  // FULL
                #expect(pragmas.2 == 1)
                #expect(pragmas.3 == 5000)
            }
            try await withStore(in: directory, configure: { $0.synchronous = .normal }) { store in
                let synchronous = try await store.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
                #expect(synchronous == 1)  // NORMAL
            }
        }
    }

    @Test("SQLite keeps no memory statistics in a process that opened a store (no global mutex per allocation)")
    func memoryStatisticsOff() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                _ = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                #expect(SQLiteStore.configureSQLite())
                #expect(!SQLiteStore.keepsMemoryStatistics)
            }
        }
    }

    @Test("Reopening applies no migration twice and keeps the data")
    func migrationsAreIdempotent() async throws {
        try await withTemporaryDirectory { directory in
            let token = try await withStore(in: directory) { store in
                try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            }
            try await withStore(in: directory) { store in
                let applied = try await store.pool.read { try SQLiteSchema.migrator.appliedMigrations($0) }
                #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"])
                #expect(try store.lookup(token)?.bundleID == "com.example.app")
            }
        }
    }

    @Test("A file migrated by a newer Herald is refused")
    func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                try await store.pool.write { db in
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
                }
            }
            #expect(throws: StoreError.newerSchema) {
                _ = try SQLiteStore(configuration: .init(dataDirectory: directory))
            }
        }
    }

    @Test("A data directory that cannot be created is an error, not a crash")
    func unusableDirectory() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let file = directory + "/not-a-directory"
            _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
            #expect(throws: StoreError.database) {
                _ = try SQLiteStore(configuration: .init(dataDirectory: file + "/data"))
            }
        }
    }

    @Test("The schema refuses what breaks its invariants")
    func schemaInvariants() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                try await store.accept(AcceptedNotification.fixture(token: token))
                let invalid = [
                    "INSERT INTO device_token (token, bundle_id, environment, registered_at) VALUES ('ABCD', 'a', 'sandbox', 0)",
                    "INSERT INTO device_token (token, bundle_id, environment, registered_at) VALUES ('\(String(repeating: "0", count: 64))', 'a', 'staging', 0)",
                    "DELETE FROM device_token WHERE token = '\(token.hex)'",
                    "INSERT INTO signing_key (key_id, team_id, environment, public_key_pem, created_at) VALUES ('K 1', 'T', 'both', '-----BEGIN PUBLIC KEY-----', 0)",
                    "INSERT INTO signing_key (key_id, team_id, environment, topics, public_key_pem, created_at) VALUES ('K1', 'T', 'both', '{}', '-----BEGIN PUBLIC KEY-----', 0)",
                    "UPDATE notification SET trace = 'accepted'",
                    "UPDATE notification SET trace = '{\"at\":1,\"kind\":\"accepted\"}'",
                    "UPDATE registry_revision SET value = -1",
                ]
                for sql in invalid {
                    await #expect(throws: DatabaseError.self, "\(sql)") {
                        try await store.pool.write { try $0.execute(sql: sql) }
                    }
                }
            }
        }
    }
}
