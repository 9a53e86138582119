import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    static let tokenColumns = "token, bundle_id, environment, device_id, registered_at, unregistered_at, revision, kind, activity_type"
    static let signingKeyColumns = "key_id, team_id, environment, topics, public_key_pem, created_at"
    static let appColumns = "bundle_id, team_id, created_at"

    /// Brings the token, key and app caches up to the database's registry revision, and optionally reads one token the
    /// cache may not hold, in one statement (one snapshot). Blocks the caller (``RegistryConnection``).
    @discardableResult
    package func refreshRegistry(alsoFetching tokenHex: String? = nil) throws -> RegistryCache.CachedToken? {
        let knownRevision = registry.withLock { $0.revision }
        // Every part in one statement, tagged: the revision, the tokens changed since the known revision, all keys and
        // apps when the revision moved, and the requested token.
        let known = knownRevision ?? -1
        let requested = tokenHex ?? ""
        let rows = try registryConnection.rows(
            """
            WITH r AS (SELECT value FROM registry_revision WHERE id = 1)
            SELECT 'r', NULL, NULL, NULL, NULL, NULL, NULL, value, NULL, NULL FROM r
            UNION ALL
            SELECT 't', token, bundle_id, environment, device_id, registered_at, unregistered_at, revision, kind, activity_type
            FROM device_token WHERE \(known) >= 0 AND revision > \(known) AND (SELECT value FROM r) <> \(known)
            UNION ALL
            SELECT 'q', token, bundle_id, environment, device_id, registered_at, unregistered_at, revision, kind, activity_type
            FROM device_token WHERE token = \(requested)
            UNION ALL
            SELECT 'k', key_id, team_id, environment, topics, created_at, NULL, NULL, public_key_pem, NULL
            FROM signing_key WHERE (SELECT value FROM r) <> \(known)
            UNION ALL
            SELECT 'a', bundle_id, team_id, NULL, NULL, created_at, NULL, NULL, NULL, NULL
            FROM app WHERE (SELECT value FROM r) <> \(known)
            """
        )
        var revision: Int64 = 0
        var changed: [RegistryCache.CachedToken] = []
        var requestedToken: RegistryCache.CachedToken?
        var keys: [SigningKeyRecord] = []
        var apps: [AppRecord] = []
        for row in rows {
            let (tag, a, b, c, d, e, f, g, h, i) = try row.decode(
                (String, String?, String?, String?, String?, Int64?, Int64?, Int64?, String?, String?).self
            )
            switch tag {
            case "r": revision = g ?? 0
            case "t", "q":
                let token = try Self.cachedToken(
                    hex: a ?? "",
                    bundleID: b ?? "",
                    environment: c ?? "",
                    deviceID: d,
                    registeredAt: e ?? 0,
                    unregisteredAt: f,
                    revision: g ?? 0,
                    kind: h ?? "device",
                    activityType: i
                )
                if tag == "t" { changed.append(token) } else { requestedToken = token }
            case "k":
                keys.append(try Self.signingKeyRecord(keyID: a ?? "", teamID: b ?? "", scope: c ?? "", topics: d, pem: h ?? "", createdAt: e ?? 0))
            case "a":
                apps.append(AppRecord(bundleID: a ?? "", teamID: b ?? "", createdAtMilliseconds: e ?? 0))
            default: break
            }
        }
        let moved = revision != knownRevision
        registry.withLock { cache in
            cache.apply(
                revision: revision,
                changedTokens: changed,
                allSigningKeys: moved ? keys : nil,
                allApps: moved ? apps : nil
            )
            if let requestedToken { cache.store(requestedToken) }
        }
        return requestedToken
    }

    /// The registry entry of a token, from memory when the cache is fresh; a miss asks the database
    /// (``RegistryCaching/cachedLookup(_:)``).
    public func lookup(_ token: DeviceToken) throws -> TokenRecord? {
        try cachedLookup(token)
    }

    /// The signing key for a JWT `kid`, from memory when the cache is fresh; a miss refreshes first.
    public func signingKey(keyID: String) throws -> SigningKeyRecord? {
        try cachedSigningKey(keyID: keyID)
    }

    /// The team an app belongs to, or `nil` when none was recorded. Hot path: from memory, refreshed like the keys.
    public func appTeam(bundleID: String) throws -> String? {
        try cachedAppTeam(bundleID: bundleID)
    }

    // MARK: Tokens

    /// Registers a device token, stamped with the store clock's time, and caches it.
    public func registerToken(
        _ token: DeviceToken,
        bundleID: String,
        environment: APNSEnvironment,
        deviceID: String?
    ) async throws -> TokenRecord {
        let now = clock.nowMilliseconds()
        let rows = try await rows(
            """
            INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
            VALUES (\(token.hex), \(bundleID), \(environment.rawValue), \(deviceID), \(now)) ON CONFLICT (token) DO NOTHING
            RETURNING \(unescaped: Self.tokenColumns)
            """
        )
        guard let row = rows.first else { throw StoreError.duplicateDeviceToken.with(detail: token.hex) }
        let registered = try Self.cachedToken(row)
        registry.withLock { $0.store(registered) }
        return registered.record
    }

    /// Marks a token unregistered (the first time wins) and updates the cache.
    @discardableResult
    public func unregister(_ token: DeviceToken, atMilliseconds: Int64) async throws -> TokenRecord {
        let unregistered = try await withTransaction { connection in
            try await connection.query(
                "UPDATE device_token SET unregistered_at = \(atMilliseconds) WHERE token = \(token.hex) AND unregistered_at IS NULL",
                logger: self.logger
            )
            return try await self.fetchToken(token.hex, on: connection)
        }
        registry.withLock { $0.store(unregistered) }
        return unregistered.record
    }

    func fetchToken(_ hex: String, on connection: PostgresConnection) async throws -> RegistryCache.CachedToken {
        let rows = try await rows("SELECT \(unescaped: Self.tokenColumns) FROM device_token WHERE token = \(hex)", on: connection)
        guard let row = rows.first else { throw StoreError.unknownDeviceToken.with(detail: hex) }
        return try Self.cachedToken(row)
    }

    static func cachedToken(_ row: PostgresRow) throws -> RegistryCache.CachedToken {
        let (hex, bundleID, environment, deviceID, registeredAt, unregisteredAt, revision, kind, activityType) = try row.decode(
            (String, String, String, String?, Int64, Int64?, Int64, String, String?).self
        )
        return try cachedToken(
            hex: hex,
            bundleID: bundleID,
            environment: environment,
            deviceID: deviceID,
            registeredAt: registeredAt,
            unregisteredAt: unregisteredAt,
            revision: revision,
            kind: kind,
            activityType: activityType
        )
    }

    static func cachedToken(
        hex: String,
        bundleID: String,
        environment environmentName: String,
        deviceID: String?,
        registeredAt: Int64,
        unregisteredAt: Int64?,
        revision: Int64,
        kind: String,
        activityType: String?
    ) throws -> RegistryCache.CachedToken {
        guard let token = DeviceToken(hex: hex), let environment = APNSEnvironment(rawValue: environmentName) else {
            throw StoreError.corruptRecord.with(detail: "device_token \(hex)")
        }
        let record = TokenRecord(
            token: token,
            bundleID: bundleID,
            environment: environment,
            deviceID: deviceID,
            registeredAtMilliseconds: registeredAt,
            unregisteredAtMilliseconds: unregisteredAt,
            kind: TokenKind(rawValue: kind),
            activityType: activityType
        )
        return RegistryCache.CachedToken(record: record, revision: revision)
    }

    // MARK: Signing keys

    /// Adds a signing key; this node's cache sees it at once, other nodes' on their next refresh.
    public func addSigningKey(_ key: SigningKeyRecord) async throws {
        let topics: String?
        if let list = key.topics {
            guard let data = try? JSONEncoder().encode(list) else { throw StoreError.invalidRecord.with(detail: "topics") }
            topics = String(decoding: data, as: UTF8.self)
        } else {
            topics = nil
        }
        let rows = try await rows(
            """
            INSERT INTO signing_key (key_id, team_id, environment, topics, public_key_pem, created_at)
            VALUES (\(key.keyID), \(key.teamID), \(key.scope.rawValue), \(topics), \(key.publicKeyPEM), \(key.createdAtMilliseconds))
            ON CONFLICT (key_id) DO NOTHING RETURNING key_id
            """
        )
        guard !rows.isEmpty else { throw StoreError.duplicateSigningKey.with(detail: key.keyID) }
        registry.withLock { $0.store(key) }
    }

    /// Every signing key, oldest first, read from the database (not the cache).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await rows("SELECT \(unescaped: Self.signingKeyColumns) FROM signing_key ORDER BY created_at, key_id").map { row in
            let (keyID, teamID, scope, topics, pem, createdAt) = try row.decode((String, String, String, String?, String, Int64).self)
            return try Self.signingKeyRecord(keyID: keyID, teamID: teamID, scope: scope, topics: topics, pem: pem, createdAt: createdAt)
        }
    }

    /// Removes a signing key; fails with ``StoreError/unknownSigningKey`` when there is none.
    public func removeSigningKey(keyID: String) async throws {
        let rows = try await rows("DELETE FROM signing_key WHERE key_id = \(keyID) RETURNING key_id")
        guard !rows.isEmpty else { throw StoreError.unknownSigningKey.with(detail: keyID) }
        registry.withLock { $0.removeSigningKey(keyID) }
    }

    static func signingKeyRecord(
        keyID: String,
        teamID: String,
        scope: String,
        topics: String?,
        pem: String,
        createdAt: Int64
    ) throws
        -> SigningKeyRecord
    {
        try SigningKeyRecord.stored(
            keyID: keyID,
            teamID: teamID,
            scope: scope,
            topicsJSON: topics,
            publicKeyPEM: pem,
            createdAtMilliseconds: createdAt
        )
    }

    // MARK: Apps

    /// Records that an app belongs to a team; adding it again for the same team is no change. Fails with
    /// ``StoreError/appOfAnotherTeam`` when it belongs to another team.
    @discardableResult
    public func addApp(bundleID: String, teamID: String) async throws -> AppRecord {
        let now = clock.nowMilliseconds()
        let record = try await withTransaction { connection -> AppRecord in
            try await connection.query(
                "INSERT INTO app (bundle_id, team_id, created_at) VALUES (\(bundleID), \(teamID), \(now)) ON CONFLICT (bundle_id) DO NOTHING",
                logger: self.logger
            )
            let rows = try await self.rows("SELECT \(unescaped: Self.appColumns) FROM app WHERE bundle_id = \(bundleID)", on: connection)
            guard let row = rows.first else { throw StoreError.unknownApp.with(detail: bundleID) }
            let (storedBundleID, storedTeamID, createdAt) = try row.decode((String, String, Int64).self)
            guard storedTeamID == teamID else {
                throw StoreError.appOfAnotherTeam.with(detail: "\(bundleID) belongs to team \(storedTeamID)")
            }
            return AppRecord(bundleID: storedBundleID, teamID: storedTeamID, createdAtMilliseconds: createdAt)
        }
        registry.withLock { $0.storeApp(bundleID, teamID: teamID) }
        return record
    }

    /// Every app with its team, by bundle id.
    public func apps() async throws -> [AppRecord] {
        try await rows("SELECT \(unescaped: Self.appColumns) FROM app ORDER BY bundle_id").map { row in
            let (bundleID, teamID, createdAt) = try row.decode((String, String, Int64).self)
            return AppRecord(bundleID: bundleID, teamID: teamID, createdAtMilliseconds: createdAt)
        }
    }

    /// Removes an app's team. Fails with ``StoreError/unknownApp`` when there is none.
    public func removeApp(bundleID: String) async throws {
        let rows = try await rows("DELETE FROM app WHERE bundle_id = \(bundleID) RETURNING bundle_id")
        guard !rows.isEmpty else { throw StoreError.unknownApp.with(detail: bundleID) }
        registry.withLock { $0.storeApp(bundleID, teamID: nil) }
    }
}
