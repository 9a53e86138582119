import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    static let deviceColumns = "id, name, created_at"

    /// Adds a device with a new random id and secret, stamped with the store clock's time.
    ///
    /// The name must be 1 to 255 characters without control characters (it is printed on one line);
    /// otherwise the call fails with ``StoreError/invalidRecord``. Only the secret's SHA-256 is stored.
    public func addDevice(name: String) async throws -> DeviceCredentials {
        try checkOpen()
        guard Self.isValidDeviceName(name) else {
            throw StoreError.invalidRecord.with(detail: "a device name is 1 to 255 characters, without control characters")
        }
        let device = DeviceRecord(id: UUID().uuidString.lowercased(), name: name, createdAtMilliseconds: clock.nowMilliseconds())
        let secret = DeviceSecret.generate()
        let digest = DeviceSecret.digest(of: secret)
        try await write { db in
            try db.execute(
                sql: "INSERT INTO device (id, name, secret_sha256, created_at) VALUES (?, ?, ?, ?)",
                arguments: [device.id, device.name, digest, device.createdAtMilliseconds]
            )
        }
        return DeviceCredentials(device: device, secret: secret)
    }

    /// The device when `secret` is its secret; `nil` for an unknown id or a wrong secret.
    ///
    /// The id is compared case-insensitively; the secret's hash in constant time.
    public func authenticateDevice(id: String, secret: String) async throws -> DeviceRecord? {
        try checkOpen()
        let found = try await read { db -> (device: DeviceRecord, digest: String)? in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT \(Self.deviceColumns), secret_sha256 FROM device WHERE id = ?",
                    arguments: [id.lowercased()]
                )
            else { return nil }
            return (try Self.deviceRecord(row), try row.decode(forColumn: "secret_sha256"))
        }
        // The hash is computed for an unknown id too, so that both answers take about as long.
        let storedDigest = found?.digest ?? String(repeating: "0", count: 64)
        guard DeviceSecret.matches(secret, storedDigest: storedDigest), let found else { return nil }
        return found.device
    }

    /// Every device, oldest first (devices added in the same millisecond in the order they were added).
    public func devices() async throws -> [DeviceRecord] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.deviceColumns) FROM device ORDER BY created_at, rowid").map(Self.deviceRecord)
        }
    }

    /// One device by id (compared case-insensitively), or `nil`.
    public func device(id: String) async throws -> DeviceRecord? {
        try checkOpen()
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.deviceColumns) FROM device WHERE id = ?", arguments: [id.lowercased()])
                .map(Self.deviceRecord)
        }
    }

    /// The app's active token on the device, issuing (and caching) a new random one when it has none.
    ///
    /// One write transaction reads and, when needed, inserts, so concurrent calls — from this process or
    /// another — agree on one token; the schema's partial unique index guarantees it. The token is in the
    /// registry cache when the call returns, so the gateway accepts pushes to it at once.
    /// Fails with ``StoreError/unknownDevice`` for an unknown device, ``StoreError/invalidRecord`` for a
    /// bundle id the schema refuses (empty, or longer than 255 characters).
    public func registerAppToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> AppTokenRegistration {
        try checkOpen()
        let deviceKey = deviceID.lowercased()
        let now = clock.nowMilliseconds()
        let (token, isNew) = try await write { db -> (RegistryCache.CachedToken, Bool) in
            guard try Self.deviceExists(deviceKey, db) else { throw StoreError.unknownDevice.with(detail: deviceID) }
            if let active = try Self.fetchActiveToken(deviceKey, bundleID, environment, db) {
                return (active, false)
            }
            // 256 random bits do not collide in practice; the loop only keeps a collision from being an error.
            for _ in 0..<3 {
                let candidate = DeviceToken.random()
                try db.execute(
                    sql: """
                        INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
                        VALUES (?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING
                        """,
                    arguments: [candidate.hex, bundleID, environment.rawValue, deviceKey, now]
                )
                if db.changesCount == 1 { return (try Self.fetchToken(candidate.hex, db), true) }
            }
            throw StoreError.duplicateDeviceToken.with(detail: "three random tokens were taken")
        }
        registry.withLock { $0.store(token) }
        return AppTokenRegistration(token: token.record, isNew: isNew)
    }

    /// The app's active token on the device, or `nil` (also for an unknown device).
    public func activeToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> TokenRecord? {
        try checkOpen()
        let deviceKey = deviceID.lowercased()
        return try await read { db in
            try Self.fetchActiveToken(deviceKey, bundleID, environment, db)?.record
        }
    }

    /// Every token the device was issued, active and unregistered, oldest first (ties by token).
    public func tokens(deviceID: String) async throws -> [TokenRecord] {
        try checkOpen()
        let deviceKey = deviceID.lowercased()
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.tokenColumns) FROM device_token WHERE device_id = ? ORDER BY registered_at, token",
                arguments: [deviceKey]
            ).map { try Self.cachedToken($0).record }
        }
    }

    private static func deviceExists(_ id: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM device WHERE id = ?)", arguments: [id]) ?? false
    }

    private static func fetchActiveToken(
        _ deviceID: String,
        _ bundleID: String,
        _ environment: APNSEnvironment,
        _ db: Database
    ) throws -> RegistryCache.CachedToken? {
        // The WHERE clause implies the partial index's, so SQLite answers from `device_token_active_per_app`.
        try Row.fetchOne(
            db,
            sql: """
                SELECT \(tokenColumns) FROM device_token
                WHERE device_id = ? AND bundle_id = ? AND environment = ? AND unregistered_at IS NULL AND kind = 'device'
                """,
            arguments: [deviceID, bundleID, environment.rawValue]
        ).map(cachedToken)
    }

    static func deviceRecord(_ row: Row) throws -> DeviceRecord {
        DeviceRecord(
            id: try row.decode(forColumn: "id"),
            name: try row.decode(forColumn: "name"),
            createdAtMilliseconds: try row.decode(forColumn: "created_at")
        )
    }

    package static func isValidDeviceName(_ name: String) -> Bool {
        (1...255).contains(name.unicodeScalars.count)
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
