import HeraldCore
import HeraldStore
import Logging

/// Runs `body` with `store`, then shuts the store down, whether `body` returned or threw.
public func withStore<Store: NotificationStore, T>(_ store: Store, _ body: (Store) async throws -> T) async throws -> T {
    do {
        let result = try await body(store)
        await store.shutdown()
        return result
    } catch {
        await store.shutdown()
        throw error
    }
}

/// Opens a SQLite store in `directory`, runs `body` with it, and always shuts the store down.
public func withStore<T>(
    in directory: String,
    clock: any WallClock = SystemWallClock(),
    configure: (inout SQLiteStore.Configuration) -> Void = { _ in },
    _ body: (SQLiteStore) async throws -> T
) async throws -> T {
    var configuration = SQLiteStore.Configuration(dataDirectory: directory)
    configure(&configuration)
    let store = try SQLiteStore(configuration: configuration, clock: clock, logger: Logger(label: "test.store"))
    return try await withStore(store, body)
}
