import HeraldGateway
import HeraldPostgres
import HeraldStore
import HeraldWeb

extension HeraldServer {
    /// What the web port's `GET /readyz` waits for besides the web port itself (docs/console.md, "Health"): the
    /// store open, the provider API's ports bound, and on a cluster node its lease held. Each check reads memory only.
    static func readinessConditions(store: any NotificationStore, gateway: Gateway, isClusterNode: Bool) -> [ReadinessCondition] {
        var conditions = [
            ReadinessCondition(ReadinessCondition.store, isMet: isOpen(store)),
            ReadinessCondition(ReadinessCondition.providerPorts) { gateway.isListening },
        ]
        if isClusterNode, let postgres = store as? PostgresStore {
            conditions.append(ReadinessCondition(ReadinessCondition.clusterLease) { postgres.holdsLease })
        }
        return conditions
    }

    /// Whether the store is open: created, and not shut down (``shutdown()``).
    private static func isOpen(_ store: any NotificationStore) -> @Sendable () -> Bool {
        switch store {
        case let sqlite as SQLiteStore: { (try? sqlite.checkOpen()) != nil }
        case let postgres as PostgresStore: { (try? postgres.checkOpen()) != nil }
        default: { true }
        }
    }
}
