import GRDB
import HeraldCore

/// Tokens found unregistered by one ``SQLiteStore/unregisteredTokens(after:)`` call, and the registry revision
/// to ask from next time.
public struct UnregisteredTokens: Sendable, Equatable {
    /// The registry revision the answer reflects: pass it as `after` next time.
    public var revision: Int64
    /// The unregistered tokens, each with its unregistration time.
    public var tokens: [TokenRecord]

    /// Creates an answer.
    public init(revision: Int64, tokens: [TokenRecord]) {
        self.revision = revision
        self.tokens = tokens
    }
}

extension SQLiteStore {
    /// The tokens unregistered since a registry revision, by any process (the `herald` CLI writes the same file),
    /// and brings the token cache up to date with them.
    ///
    /// With `after` `nil` (a server's first pass), the answer is every unregistered token that still has a
    /// notification waiting (`stored`): those were unregistered while no server watched. Later passes read only
    /// the rows whose revision moved, through the `revision` index.
    public func unregisteredTokens(after revision: Int64?) async throws -> UnregisteredTokens {
        try checkOpen()
        let (newRevision, rows) = try await read { db -> (Int64, [RegistryCache.CachedToken]) in
            let current = try Int64.fetchOne(db, sql: "SELECT value FROM registry_revision WHERE id = 1") ?? 0
            if let revision {
                guard current != revision else { return (current, []) }
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT \(Self.tokenColumns) FROM device_token WHERE revision > ? AND unregistered_at IS NOT NULL",
                    arguments: [revision]
                )
                return (current, try rows.map(Self.cachedToken))
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.tokenColumns) FROM device_token WHERE unregistered_at IS NOT NULL
                    AND token IN (
                        SELECT t.token FROM notification AS n CROSS JOIN token_ref AS t ON t.ref = n.token_ref
                        WHERE n.state = 'stored')
                    """
            )
            return (current, try rows.map(Self.cachedToken))
        }
        // The gateway's lookups answer `410` from here on, without waiting for their own refresh.
        registry.withLock { cache in
            for row in rows { cache.store(row) }
        }
        return UnregisteredTokens(revision: newRevision, tokens: rows.map(\.record))
    }
}
