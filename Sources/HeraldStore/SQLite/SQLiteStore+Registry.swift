import GRDB
import HeraldCore

extension SQLiteStore {
    static let tokenColumns = "token, bundle_id, environment, device_id, registered_at, unregistered_at, revision, kind, activity_type"
    static let signingKeyColumns = "key_id, team_id, environment, topics, public_key_pem, created_at"

    /// Brings the token and key caches up to the file's registry revision, and optionally reads one token
    /// that the cache may not hold, in the same read transaction.
    ///
    /// Returns that token's row, when asked for and found.
    @discardableResult
    package func refreshRegistry(alsoFetching tokenHex: String? = nil) throws -> RegistryCache.CachedToken? {
        let knownRevision = registry.withLock { $0.revision }
        let snapshot: RegistrySnapshot
        do {
            snapshot = try pool.read { db in
                let revision = try Int64.fetchOne(db, sql: "SELECT value FROM registry_revision WHERE id = 1") ?? 0
                var snapshot = RegistrySnapshot(revision: revision)
                if revision != knownRevision {
                    // Before the first refresh no token is cached, so none needs updating: tokens load lazily.
                    if let knownRevision {
                        snapshot.changedTokens = try Row.fetchAll(
                            db,
                            sql: "SELECT \(Self.tokenColumns) FROM device_token WHERE revision > ?",
                            arguments: [knownRevision]
                        ).map(Self.cachedToken)
                    }
                    snapshot.signingKeys = try Row.fetchAll(db, sql: "SELECT \(Self.signingKeyColumns) FROM signing_key")
                        .map(Self.signingKeyRecord)
                    snapshot.apps = try Row.fetchAll(db, sql: "SELECT \(Self.appColumns) FROM app").map(Self.appRecord)
                }
                if let tokenHex {
                    snapshot.requestedToken = try Row.fetchOne(
                        db,
                        sql: "SELECT \(Self.tokenColumns) FROM device_token WHERE token = ?",
                        arguments: [tokenHex]
                    ).map(Self.cachedToken)
                }
                return snapshot
            }
        } catch {
            throw Self.storeError(error)
        }
        registry.withLock { cache in
            cache.apply(
                revision: snapshot.revision,
                changedTokens: snapshot.changedTokens,
                allSigningKeys: snapshot.signingKeys,
                allApps: snapshot.apps
            )
            if let requested = snapshot.requestedToken { cache.store(requested) }
        }
        return snapshot.requestedToken
    }

    /// The registry entry of a token, from memory when the cache is fresh; a miss reads the file
    /// (``RegistryCaching/cachedLookup(_:)``).
    public func lookup(_ token: DeviceToken) throws -> TokenRecord? {
        try cachedLookup(token)
    }

    /// The signing key for a JWT `kid`, from memory when the cache is fresh; a miss refreshes first.
    public func signingKey(keyID: String) throws -> SigningKeyRecord? {
        try cachedSigningKey(keyID: keyID)
    }

    static func cachedToken(_ row: Row) throws -> RegistryCache.CachedToken {
        let hex: String = try row.decode(forColumn: "token")
        let environmentName: String = try row.decode(forColumn: "environment")
        guard let token = DeviceToken(hex: hex), let environment = APNSEnvironment(rawValue: environmentName) else {
            throw StoreError.corruptRecord.with(detail: "device_token \(hex)")
        }
        let record = TokenRecord(
            token: token,
            bundleID: try row.decode(forColumn: "bundle_id"),
            environment: environment,
            deviceID: try row.decode(forColumn: "device_id"),
            registeredAtMilliseconds: try row.decode(forColumn: "registered_at"),
            unregisteredAtMilliseconds: try row.decode(forColumn: "unregistered_at"),
            kind: TokenKind(rawValue: try row.decode(forColumn: "kind")),
            activityType: try row.decode(forColumn: "activity_type")
        )
        return RegistryCache.CachedToken(record: record, revision: try row.decode(forColumn: "revision"))
    }
}

/// What one registry refresh read, in one snapshot of the file.
struct RegistrySnapshot: Sendable {
    var revision: Int64
    var changedTokens: [RegistryCache.CachedToken] = []
    var signingKeys: [SigningKeyRecord]?
    var apps: [AppRecord]?
    var requestedToken: RegistryCache.CachedToken?
}
