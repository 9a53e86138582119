/// Why `herald serve` may not use a database: another single node holds it, or a single node and cluster nodes would
/// share it (docs/postgresql.md, "One server per database"). Its description is the one line the CLI prints.
public struct ServeLockRefusal: Error, CustomStringConvertible {
    /// A session holding the serve lock.
    public struct Holder: Sendable, Hashable {
        /// The session's `application_name`: `herald serve pid … on …` for a single node, `herald node ID` for a
        /// cluster node.
        public var applicationName: String
        /// Held exclusively: a single node.
        public var exclusive: Bool
        /// The PostgreSQL backend's pid, to name a session that is not Herald's.
        public var backendPID: Int32

        /// How the refusal names it: the pid and host of a single node, the id of a cluster node.
        var name: String {
            for prefix in [ServeLock.singlePrefix, ServeLock.clusterPrefix] where applicationName.hasPrefix(prefix) {
                return String(applicationName.dropFirst(prefix.count))
            }
            return "PostgreSQL session \(backendPID)" + (applicationName.isEmpty ? "" : " '\(applicationName)'")
        }
    }

    /// The refused server is a cluster node.
    public var cluster: Bool
    /// Who holds the lock, oldest first.
    public var holders: [Holder]
    /// The database, without its password.
    public var database: String

    /// The most holders the description names.
    static let namedHolders = 5

    public var description: String {
        let names =
            holders.prefix(Self.namedHolders).map(\.name) + (holders.count > Self.namedHolders ? ["\(holders.count - Self.namedHolders) more"] : [])
        let list = names.joined(separator: ", ")
        if let single = holders.first(where: \.exclusive) {
            if cluster {
                return "a herald serve without --cluster (\(single.name)) is using the database \(database): "
                    + "stop it first, or run it with --cluster too (docs/cluster.md)"
            }
            return "another herald serve (\(single.name)) is using the database \(database): "
                + "stop it first, or run every node with --cluster (docs/cluster.md)"
        }
        let nodes = holders.count == 1 ? "a herald serve --cluster node (\(list)) is" : "herald serve --cluster nodes (\(list)) are"
        return "\(nodes) using the database \(database): run this one with --cluster too, or give it a database of its own (docs/cluster.md)"
    }
}
