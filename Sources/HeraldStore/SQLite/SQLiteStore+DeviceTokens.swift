import GRDB
import HeraldCore

extension SQLiteStore {
    /// Registers a device token, stamped with the store clock's time, and caches it.
    ///
    /// A device has at most one active token per app and environment (the schema's partial unique index): a
    /// second one for the same `deviceID` fails with ``StoreError/invalidRecord``; devices use
    /// ``registerAppToken(deviceID:bundleID:environment:)``.
    public func registerToken(
        _ token: DeviceToken,
        bundleID: String,
        environment: APNSEnvironment,
        deviceID: String?
    ) async throws -> TokenRecord {
        try checkOpen()
        let now = clock.nowMilliseconds()
        let registered = try await write { db -> RegistryCache.CachedToken in
            try db.execute(
                sql: """
                    INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
                    VALUES (?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING
                    """,
                arguments: [token.hex, bundleID, environment.rawValue, deviceID, now]
            )
            guard db.changesCount == 1 else { throw StoreError.duplicateDeviceToken.with(detail: token.hex) }
            return try Self.fetchToken(token.hex, db)
        }
        registry.withLock { $0.store(registered) }
        return registered.record
    }

    /// Marks a token unregistered (the first time wins) and updates the cache.
    @discardableResult
    public func unregister(_ token: DeviceToken, atMilliseconds: Int64) async throws -> TokenRecord {
        try checkOpen()
        let unregistered = try await write { db -> RegistryCache.CachedToken in
            // Only the first unregistration counts: it is the time APNs reports with `410` (spec §A.4).
            try db.execute(
                sql: "UPDATE device_token SET unregistered_at = ? WHERE token = ? AND unregistered_at IS NULL",
                arguments: [atMilliseconds, token.hex]
            )
            return try Self.fetchToken(token.hex, db)
        }
        registry.withLock { $0.store(unregistered) }
        return unregistered.record
    }

    static func fetchToken(_ hex: String, _ db: Database) throws -> RegistryCache.CachedToken {
        let row = try Row.fetchOne(db, sql: "SELECT \(tokenColumns) FROM device_token WHERE token = ?", arguments: [hex])
        guard let row else { throw StoreError.unknownDeviceToken.with(detail: hex) }
        return try cachedToken(row)
    }

    /// Runs a short write transaction (IMMEDIATE, so the busy timeout applies to taking the lock) and maps
    /// its errors to ``StoreError``.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(updates)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs a read and maps its errors to ``StoreError``.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(value)
        } catch {
            throw Self.storeError(error)
        }
    }
}
