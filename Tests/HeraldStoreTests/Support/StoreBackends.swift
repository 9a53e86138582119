import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import Logging
import Synchronization
import Testing

/// The two implementations of ``NotificationStore`` the contract tests run against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
}

/// Where the stores of one test live: a temporary folder (SQLite) or a new database (PostgreSQL), removed afterwards.
struct StoreLocation: Sendable {
    var backend: StoreBackend
    var path: String

    /// Opens one store on the location; several opened on one location behave as several processes (or nodes).
    func open(clock: any WallClock = SystemWallClock(), registryRefreshMilliseconds: Int64 = 200) async throws -> any NotificationStore {
        switch backend {
        case .sqlite:
            var configuration = SQLiteStore.Configuration(dataDirectory: path)
            configuration.registryRefreshIntervalMilliseconds = registryRefreshMilliseconds
            return try SQLiteStore(configuration: configuration, clock: clock, logger: Logger(label: "test.store"))
        case .postgres:
            var configuration = try PostgresStore.Configuration(url: path)
            configuration.registryRefreshIntervalMilliseconds = registryRefreshMilliseconds
            configuration.maximumConnections = 4
            return try await PostgresStore.open(configuration: configuration, clock: clock, logger: Logger(label: "test.store"))
        }
    }
}

/// Runs the body with a fresh location of the backend, and removes it afterwards.
func withStoreLocation<T>(_ backend: StoreBackend, _ body: (StoreLocation) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withTemporaryDirectory { directory in
            try await body(StoreLocation(backend: .sqlite, path: directory))
        }
    case .postgres:
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        return try await body(StoreLocation(backend: .postgres, path: url))
    }
}

/// Opens a store of the backend on a fresh location, runs the body, and always shuts the store down.
func withStore<T>(
    _ backend: StoreBackend,
    clock: any WallClock = SystemWallClock(),
    _ body: (any NotificationStore) async throws -> T
) async throws -> T {
    try await withStoreLocation(backend) { location in
        func run(_ store: some NotificationStore) async throws -> T { try await withStore(store) { try await body($0) } }
        return try await run(try await location.open(clock: clock))
    }
}

/// Enqueues through the callback form and waits for the completion.
func enqueueAndWait(_ store: any NotificationStore, _ notification: AcceptedNotification) async -> Result<Int64, StoreError> {
    await withCheckedContinuation { continuation in
        store.enqueue(notification) { continuation.resume(returning: $0) }
    }
}

/// The PostgreSQL database standing for each temporary directory a test made (several stores opened "in" one directory
/// share it, as several processes share a SQLite file), dropped with the directory (``withTemporaryDirectory(_:)``).
let databasesByDirectory = Mutex<[String: String]>([:])

/// Drops the PostgreSQL database that stood for `directory`, if one did.
func dropDatabase(standingFor directory: String) {
    guard let url = databasesByDirectory.withLock({ $0.removeValue(forKey: directory) }) else { return }
    PostgresTestServer.dropDatabase(url)
}

/// ``withStore(in:clock:configure:_:)`` on either backend: on PostgreSQL the directory stands for a database of its own
/// (made on first use), and the SQLite configuration's batching and registry settings carry over.
func withStore<T>(
    in directory: String,
    backend: StoreBackend,
    clock: any WallClock = SystemWallClock(),
    configure: (inout SQLiteStore.Configuration) -> Void = { _ in },
    _ body: (any NotificationStore) async throws -> T
) async throws -> T {
    guard backend == .postgres else {
        return try await withStore(in: directory, clock: clock, configure: configure) { try await body($0) }
    }
    let url = try databasesByDirectory.withLock { databases in
        if let url = databases[directory] { return url }
        let url = try PostgresTestServer.createDatabase()
        databases[directory] = url
        return url
    }
    var sqlite = SQLiteStore.Configuration(dataDirectory: directory)
    configure(&sqlite)
    var configuration = try PostgresStore.Configuration(url: url)
    configuration.registryRefreshIntervalMilliseconds = sqlite.registryRefreshIntervalMilliseconds
    configuration.maximumBatchSize = sqlite.maximumBatchSize
    configuration.maximumPendingNotifications = sqlite.maximumPendingNotifications
    configuration.maximumConnections = 4
    let store = try await PostgresStore.open(configuration: configuration, clock: clock, logger: Logger(label: "test.store"))
    return try await withStore(store) { try await body($0) }
}
