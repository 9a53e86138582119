import GRDB
import HeraldCore

extension SQLiteStore {
    static let appColumns = "bundle_id, team_id, created_at"

    /// Records that an app belongs to a team, stamped with the store clock's time; adding it again for the same team
    /// is no change. Fails with ``StoreError/appOfAnotherTeam`` when it belongs to another team (remove it first).
    @discardableResult
    public func addApp(bundleID: String, teamID: String) async throws -> AppRecord {
        try checkOpen()
        let now = clock.nowMilliseconds()
        let record = try await write { db -> AppRecord in
            try db.execute(
                sql: "INSERT INTO app (bundle_id, team_id, created_at) VALUES (?, ?, ?) ON CONFLICT (bundle_id) DO NOTHING",
                arguments: [bundleID, teamID, now]
            )
            let row = try Row.fetchOne(db, sql: "SELECT \(Self.appColumns) FROM app WHERE bundle_id = ?", arguments: [bundleID])
            guard let row else { throw StoreError.unknownApp.with(detail: bundleID) }
            let stored = try Self.appRecord(row)
            guard stored.teamID == teamID else {
                throw StoreError.appOfAnotherTeam.with(detail: "\(bundleID) belongs to team \(stored.teamID)")
            }
            return stored
        }
        registry.withLock { $0.storeApp(bundleID, teamID: teamID) }
        return record
    }

    /// Every app with its team, by bundle id, read from the file.
    public func apps() async throws -> [AppRecord] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.appColumns) FROM app ORDER BY bundle_id").map(Self.appRecord)
        }
    }

    /// Removes an app's team: any team may push to it again. Fails with ``StoreError/unknownApp`` when there is none.
    public func removeApp(bundleID: String) async throws {
        try checkOpen()
        try await write { db in
            try db.execute(sql: "DELETE FROM app WHERE bundle_id = ?", arguments: [bundleID])
            guard db.changesCount == 1 else { throw StoreError.unknownApp.with(detail: bundleID) }
        }
        registry.withLock { $0.storeApp(bundleID, teamID: nil) }
    }

    /// The team an app belongs to, or `nil` when none was recorded. Hot path: from memory, refreshed like the keys.
    public func appTeam(bundleID: String) throws -> String? {
        try cachedAppTeam(bundleID: bundleID)
    }

    static func appRecord(_ row: Row) throws -> AppRecord {
        AppRecord(
            bundleID: try row.decode(forColumn: "bundle_id"),
            teamID: try row.decode(forColumn: "team_id"),
            createdAtMilliseconds: try row.decode(forColumn: "created_at")
        )
    }
}
