import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    static let deviceColumns = "id, name, created_at"

    /// Adds a device with a new random id and secret (only its SHA-256 is stored).
    public func addDevice(name: String) async throws -> DeviceCredentials {
        guard SQLiteStore.isValidDeviceName(name) else {
            throw StoreError.invalidRecord.with(detail: "a device name is 1 to 255 characters, without control characters")
        }
        let device = DeviceRecord(id: UUID().uuidString.lowercased(), name: name, createdAtMilliseconds: clock.nowMilliseconds())
        let secret = DeviceSecret.generate()
        let digest = DeviceSecret.digest(of: secret)
        _ = try await rows(
            """
            INSERT INTO device (id, name, secret_sha256, created_at)
            VALUES (\(device.id), \(device.name), \(digest), \(device.createdAtMilliseconds))
            """
        )
        return DeviceCredentials(device: device, secret: secret)
    }

    /// The device when `secret` is its secret; `nil` for an unknown id or a wrong secret (hashes compared in constant
    /// time, computed for an unknown id too).
    public func authenticateDevice(id: String, secret: String) async throws -> DeviceRecord? {
        let rows = try await rows("SELECT \(unescaped: Self.deviceColumns), secret_sha256 FROM device WHERE id = \(id.lowercased())")
        var found: (DeviceRecord, String)?
        if let row = rows.first {
            let (deviceID, name, createdAt, digest) = try row.decode((String, String, Int64, String).self)
            found = (DeviceRecord(id: deviceID, name: name, createdAtMilliseconds: createdAt), digest)
        }
        let storedDigest = found?.1 ?? String(repeating: "0", count: 64)
        guard DeviceSecret.matches(secret, storedDigest: storedDigest), let found else { return nil }
        return found.0
    }

    /// Every device, oldest first (devices added in the same millisecond in the order they were added).
    public func devices() async throws -> [DeviceRecord] {
        try await rows("SELECT \(unescaped: Self.deviceColumns) FROM device ORDER BY created_at, added").map(Self.deviceRecord)
    }

    /// One device by id (compared case-insensitively), or `nil`.
    public func device(id: String) async throws -> DeviceRecord? {
        try await rows("SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = \(id.lowercased())").first.map(Self.deviceRecord)
    }

    static func deviceRecord(_ row: PostgresRow) throws -> DeviceRecord {
        let (id, name, createdAt) = try row.decode((String, String, Int64).self)
        return DeviceRecord(id: id, name: name, createdAtMilliseconds: createdAt)
    }

    /// Locks the device's row for the transaction (registrations of one device are serialised, on every node);
    /// fails with ``StoreError/unknownDevice`` when there is none.
    private func lockDevice(_ deviceKey: String, shownAs deviceID: String, on connection: PostgresConnection) async throws {
        let rows = try await rows("SELECT 1 FROM device WHERE id = \(deviceKey) FOR UPDATE", on: connection)
        guard !rows.isEmpty else { throw StoreError.unknownDevice.with(detail: deviceID) }
    }

    /// The app's active token on the device, issuing (and caching) a new random one when it has none.
    ///
    /// The device's row is locked for the transaction, so concurrent calls on any node agree on one token.
    public func registerAppToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> AppTokenRegistration {
        let deviceKey = deviceID.lowercased()
        let now = clock.nowMilliseconds()
        let (token, isNew) = try await withTransaction { connection -> (RegistryCache.CachedToken, Bool) in
            try await self.lockDevice(deviceKey, shownAs: deviceID, on: connection)
            if let active = try await self.fetchActiveToken(deviceKey, bundleID, environment, on: connection) {
                return (active, false)
            }
            // 256 random bits do not collide in practice; the loop only keeps a collision from being an error.
            for _ in 0..<3 {
                let candidate = DeviceToken.random()
                let rows = try await self.rows(
                    """
                    INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
                    VALUES (\(candidate.hex), \(bundleID), \(environment.rawValue), \(deviceKey), \(now))
                    ON CONFLICT (token) DO NOTHING RETURNING \(unescaped: Self.tokenColumns)
                    """,
                    on: connection
                )
                if let row = rows.first { return (try Self.cachedToken(row), true) }
            }
            throw StoreError.duplicateDeviceToken.with(detail: "three random tokens were taken")
        }
        registry.withLock { $0.store(token) }
        return AppTokenRegistration(token: token.record, isNew: isNew)
    }

    /// The app's active token on the device, or `nil` (also for an unknown device).
    public func activeToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> TokenRecord? {
        try await withConnection { connection in
            try await self.fetchActiveToken(deviceID.lowercased(), bundleID, environment, on: connection)?.record
        }
    }

    /// Every token the device was issued, active and unregistered, oldest first (ties by token).
    public func tokens(deviceID: String) async throws -> [TokenRecord] {
        try await rows(
            """
            SELECT \(unescaped: Self.tokenColumns) FROM device_token WHERE device_id = \(deviceID.lowercased())
            ORDER BY registered_at, token
            """
        ).map { try Self.cachedToken($0).record }
    }

    private func fetchActiveToken(
        _ deviceKey: String,
        _ bundleID: String,
        _ environment: APNSEnvironment,
        on connection: PostgresConnection
    ) async throws -> RegistryCache.CachedToken? {
        try await rows(
            """
            SELECT \(unescaped: Self.tokenColumns) FROM device_token
            WHERE device_id = \(deviceKey) AND bundle_id = \(bundleID) AND environment = \(environment.rawValue)
                AND unregistered_at IS NULL AND kind = 'device'
            """,
            on: connection
        ).first.map(Self.cachedToken)
    }

    /// Registers a Live Activity token a device reports; the rules are ``SQLiteStore``'s
    /// (``DeviceRegistry/registerActivityToken(_:limit:)``), with the device's row locked for the transaction.
    public func registerActivityToken(_ request: ActivityTokenRequest, limit: Int) async throws -> AppTokenRegistration {
        guard request.kind.isActivityKind || request.kind.isWebPush else {
            throw StoreError.invalidRecord.with(detail: "\(request.kind) is not an activity token kind or web-push")
        }
        let deviceKey = request.deviceID.lowercased()
        let now = clock.nowMilliseconds()
        let (changed, registration) = try await withTransaction { connection -> ([RegistryCache.CachedToken], AppTokenRegistration) in
            try await self.lockDevice(deviceKey, shownAs: request.deviceID, on: connection)
            if let existing = try await self.rows(
                "SELECT \(unescaped: Self.tokenColumns) FROM device_token WHERE token = \(request.token.hex)",
                on: connection
            ).first {
                let cached = try Self.cachedToken(existing)
                let record = cached.record
                guard record.deviceID == deviceKey, record.bundleID == request.bundleID, record.environment == request.environment,
                    record.kind == request.kind, record.isActive
                else { throw StoreError.duplicateDeviceToken.with(detail: request.token.hex) }
                return ([cached], AppTokenRegistration(token: record, isNew: false))
            }
            let counted = try await self.rows(
                """
                SELECT count(*) FROM device_token WHERE device_id = \(deviceKey) AND unregistered_at IS NULL AND kind <> 'device'
                """,
                on: connection
            )
            let active = try counted.first?.decode(Int.self) ?? 0
            var changed: [RegistryCache.CachedToken] = []
            var replaced: String?
            if request.kind == .pushToStart || request.kind == .webPush {
                replaced = try await self.rows(
                    """
                    SELECT token FROM device_token WHERE device_id = \(deviceKey) AND bundle_id = \(request.bundleID)
                        AND environment = \(request.environment.rawValue) AND activity_type = \(request.activityType)
                        AND unregistered_at IS NULL AND kind = \(request.kind.rawValue)
                    """,
                    on: connection
                ).first?.decode(String.self)
            }
            guard active - (replaced == nil ? 0 : 1) < limit else {
                throw StoreError.tooManyTokens.with(detail: "the device has \(active) active activity tokens (at most \(limit))")
            }
            if let replaced {
                try await connection.query(
                    "UPDATE device_token SET unregistered_at = \(now) WHERE token = \(replaced)",
                    logger: self.logger
                )
                changed.append(try await self.fetchToken(replaced, on: connection))
            }
            let rows = try await self.rows(
                """
                INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at, kind, activity_type)
                VALUES (\(request.token.hex), \(request.bundleID), \(request.environment.rawValue), \(deviceKey), \(now),
                    \(request.kind.rawValue), \(request.activityType))
                RETURNING \(unescaped: Self.tokenColumns)
                """,
                on: connection
            )
            guard let row = rows.first else { throw StoreError.database.with(detail: "the token was not inserted") }
            let inserted = try Self.cachedToken(row)
            changed.append(inserted)
            return (changed, AppTokenRegistration(token: inserted.record, isNew: true))
        }
        registry.withLock { cache in
            for token in changed { cache.store(token) }
        }
        return registration
    }
}
