/// One thing `GET /readyz` waits for (``HealthEndpoints``): its name in the answer and a check of it.
///
/// The check runs on every request, which an orchestrator may send every second: it reads state kept in memory (a
/// flag, a time) and never asks the store or the network.
public struct ReadinessCondition: Sendable {
    /// The store is open (`herald serve` opens it before anything listens and closes it last).
    public static let store = "store"
    /// The provider API's ports are bound and not closing.
    public static let providerPorts = "provider-ports"
    /// The web port is bound and not closing (``WebServer`` adds this condition itself).
    public static let webPort = "web-port"
    /// A cluster node's lease is held: its last heartbeat was written within the lease (docs/cluster.md).
    public static let clusterLease = "cluster-lease"

    /// The name `/readyz` lists while the condition does not hold, e.g. ``store``.
    public var name: String
    /// Whether the condition holds now.
    public var isMet: @Sendable () -> Bool

    /// A condition named `name`, checked by `isMet`.
    public init(_ name: String, isMet: @escaping @Sendable () -> Bool) {
        self.name = name
        self.isMet = isMet
    }
}
