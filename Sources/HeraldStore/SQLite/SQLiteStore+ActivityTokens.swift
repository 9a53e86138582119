import GRDB
import HeraldCore

extension SQLiteStore {
    /// Registers a Live Activity token a device reports (an activity's push token or a type's push-to-start
    /// token) or a web app's push subscription (kind `web-push`: `bundleID` the web app's origin, `activityType` the
    /// subscription's `applicationServerKey`), stamped with the store clock's time, and caches it so the gateway routes
    /// pushes to it at once.
    ///
    /// Idempotent: the same token again for the same device, app, environment and kind returns it (`isNew` false).
    /// A new push-to-start token of a type retires the type's previous one on that device (it rotated). Fails with
    /// ``StoreError/unknownDevice``, ``StoreError/duplicateDeviceToken`` (the token is registered to something
    /// else), ``StoreError/tooManyTokens`` (the device already has `limit` active activity tokens), or
    /// ``StoreError/invalidRecord`` for a `device` kind or a value the schema refuses.
    public func registerActivityToken(_ request: ActivityTokenRequest, limit: Int) async throws -> AppTokenRegistration {
        try checkOpen()
        guard request.kind.isActivityKind || request.kind.isWebPush else {
            throw StoreError.invalidRecord.with(detail: "\(request.kind) is not an activity token kind or web-push")
        }
        let deviceKey = request.deviceID.lowercased()
        let now = clock.nowMilliseconds()
        let (changed, registration) = try await write { db -> ([RegistryCache.CachedToken], AppTokenRegistration) in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM device WHERE id = ?)", arguments: [deviceKey]) == true else {
                throw StoreError.unknownDevice.with(detail: request.deviceID)
            }
            if let existing = try Row.fetchOne(
                db,
                sql: "SELECT \(Self.tokenColumns) FROM device_token WHERE token = ?",
                arguments: [request.token.hex]
            ) {
                let cached = try Self.cachedToken(existing)
                let record = cached.record
                guard record.deviceID == deviceKey, record.bundleID == request.bundleID, record.environment == request.environment,
                    record.kind == request.kind, record.isActive
                else { throw StoreError.duplicateDeviceToken.with(detail: request.token.hex) }
                return ([cached], AppTokenRegistration(token: record, isNew: false))
            }
            let active =
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM device_token WHERE device_id = ? AND unregistered_at IS NULL AND kind <> 'device'",
                    arguments: [deviceKey]
                ) ?? 0
            var changed: [RegistryCache.CachedToken] = []
            var replaced: String?
            if request.kind == .pushToStart || request.kind == .webPush {
                replaced = try String.fetchOne(
                    db,
                    sql: """
                        SELECT token FROM device_token WHERE device_id = ? AND bundle_id = ? AND environment = ?
                            AND activity_type = ? AND unregistered_at IS NULL AND kind = ?
                        """,
                    arguments: [deviceKey, request.bundleID, request.environment.rawValue, request.activityType, request.kind.rawValue]
                )
            }
            guard active - (replaced == nil ? 0 : 1) < limit else {
                throw StoreError.tooManyTokens.with(detail: "the device has \(active) active activity tokens (at most \(limit))")
            }
            if let replaced {
                try db.execute(sql: "UPDATE device_token SET unregistered_at = ? WHERE token = ?", arguments: [now, replaced])
                changed.append(try Self.fetchToken(replaced, db))
            }
            try db.execute(
                sql: """
                    INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at, kind, activity_type)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    request.token.hex, request.bundleID, request.environment.rawValue, deviceKey, now, request.kind.rawValue,
                    request.activityType,
                ]
            )
            let inserted = try Self.fetchToken(request.token.hex, db)
            changed.append(inserted)
            return (changed, AppTokenRegistration(token: inserted.record, isNew: true))
        }
        registry.withLock { cache in
            for token in changed { cache.store(token) }
        }
        return registration
    }
}
