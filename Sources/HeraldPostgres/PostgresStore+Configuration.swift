import Foundation
import HeraldStore
import NIOSSL
import PostgresNIO

extension PostgresStore {
    /// Where the database is and how the store batches its writes.
    public struct Configuration: Sendable {
        /// The database's address, as `herald serve --database` takes it (``init(url:)``).
        public var url: URL
        /// The most notifications one group-commit transaction takes. Default 2000 (as ``SQLiteStore``).
        public var maximumBatchSize: Int = 2000
        /// The most notifications that may wait for a commit; more fail at once with ``StoreError/overloaded``.
        /// Default 100 000.
        public var maximumPendingNotifications: Int = 100_000
        /// How old the token and key caches may get, in milliseconds, before a lookup asks the database for changes
        /// made by other nodes; a miss asks at once and its answer "unknown" is remembered for as long. Default 200.
        public var registryRefreshIntervalMilliseconds: Int64 = 200
        /// How long a hot-path registry query may take before the lookup gives up (and answers from memory when it
        /// can). Default 2 s.
        public var registryQueryTimeout: Duration = .seconds(2)
        /// The most pooled connections (group commit, the delivery journal, queries). Default 8.
        public var maximumConnections: Int = 8
        /// How long one operation (a group commit, a journal batch, a query) may wait for a connection and its answer
        /// before it fails with ``StoreError/unavailable``. Default 10 s.
        public var operationTimeout: Duration = .seconds(10)
        /// How long opening a connection may take. Default 5 s.
        public var connectTimeout: Duration = .seconds(5)
        /// Set for a node of a cluster (`herald serve --cluster`, docs/cluster.md): its id and lease. `nil`: a single
        /// node, which keeps no routes and hands nothing off.
        public var cluster: Cluster?
        /// Hold the database's serve lock while the store is open (`herald serve` does; docs/postgresql.md, "One
        /// server per database"): exclusively for a single node, shared for a cluster node. Opening fails with
        /// ``ServeLockRefusal`` when another server holds it in a way it cannot share. Default `false`: the CLI's
        /// commands and the tests' stores share a database with anything.
        public var holdsServeLock = false

        /// A cluster node's settings.
        public struct Cluster: Sendable, Hashable {
            /// The node's id: 1 to 48 letters, digits, `.`, `_`, `:` and `-` (`host:port` by default).
            public var nodeID: String
            /// How long a node counts as alive after its last heartbeat; its routes count as none afterwards.
            /// Default 5 s (a heartbeat every second).
            public var lease: Duration = .seconds(5)

            /// Settings for the node `nodeID`; fails with ``StoreError/invalidRecord`` when the id is not of the form
            /// above.
            public init(nodeID: String) throws {
                guard Self.isValidNodeID(nodeID) else {
                    throw StoreError.invalidRecord.with(detail: "node id \"\(nodeID)\": 1 to 48 letters, digits, '.', '_', ':' or '-'")
                }
                self.nodeID = nodeID
            }

            /// Whether `text` is a node id.
            public static func isValidNodeID(_ text: String) -> Bool {
                (1...48).contains(text.utf8.count)
                    && text.utf8.allSatisfy { byte in
                        switch byte {
                        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                            true
                        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"): true
                        default: false
                        }
                    }
            }

            /// What precedes a node's id in the name of its `NOTIFY` channel.
            static let channelPrefix = "herald:"

            /// The channel other nodes `NOTIFY` with the sequences they committed for this node's tokens.
            var channel: String { Self.channelPrefix + nodeID }

            /// The channel every node's web console listens on (never a node's: it does not start with
            /// ``channelPrefix``).
            static let consoleChannel = "herald-ui"

            /// The lease in whole milliseconds.
            var leaseMilliseconds: Int64 {
                let (seconds, attoseconds) = lease.components
                return seconds * 1000 + attoseconds / 1_000_000_000_000_000
            }
        }

        /// A configuration with the defaults for a database URL:
        /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&host=/socket/dir]`.
        ///
        /// `postgresql://` works too. The port defaults to 5432, the user to `postgres`, the database to the user's
        /// name, `sslmode` to `prefer`. A `host` query item that is a folder connects over PostgreSQL's Unix socket
        /// in it (`.s.PGSQL.PORT`). Fails with ``StoreError/invalidRecord`` for anything else, with what is wrong.
        public init(url text: String) throws {
            guard let url = URL(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else {
                throw StoreError.invalidRecord.with(detail: "a database URL starts with postgres:// (got \(Self.redacted(text)))")
            }
            self.url = url
            _ = try parts()
        }

        /// What the URL says, checked.
        struct Parts {
            var host: String
            var port: Int
            var socketDirectory: String?
            var user: String
            var password: String?
            var database: String
            var sslMode: String
        }

        func parts() throws -> Parts {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let items = components?.queryItems ?? []
            let item = { (name: String) in items.first { $0.name == name }?.value }
            let user = url.user(percentEncoded: false) ?? "postgres"
            let port = url.port ?? Int(item("port") ?? "") ?? 5432
            guard (1...65535).contains(port) else { throw StoreError.invalidRecord.with(detail: "database port \(port)") }
            var database = url.path(percentEncoded: false)
            if database.hasPrefix("/") { database.removeFirst() }
            if database.isEmpty { database = user }
            let sslMode = item("sslmode") ?? "prefer"
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw StoreError.invalidRecord.with(detail: "sslmode \(sslMode): Herald knows disable, prefer and require")
            }
            var socketDirectory: String?
            if let host = item("host"), host.hasPrefix("/") { socketDirectory = host }
            let host = url.host(percentEncoded: false) ?? ""
            guard socketDirectory != nil || !host.isEmpty else {
                throw StoreError.invalidRecord.with(detail: "the database URL names no host")
            }
            return Parts(
                host: host,
                port: port,
                socketDirectory: socketDirectory,
                user: user,
                password: url.password(percentEncoded: false),
                database: database,
                sslMode: sslMode
            )
        }

        /// The pool's configuration.
        func clientConfiguration() throws -> PostgresClient.Configuration {
            let parts = try parts()
            var configuration: PostgresClient.Configuration
            if let directory = parts.socketDirectory {
                configuration = PostgresClient.Configuration(
                    unixSocketPath: "\(directory)/.s.PGSQL.\(parts.port)",
                    username: parts.user,
                    password: parts.password,
                    database: parts.database
                )
            } else {
                let tls: PostgresClient.Configuration.TLS
                switch parts.sslMode {
                case "disable": tls = .disable
                case "require": tls = .require(try Self.tlsConfiguration())
                default: tls = .prefer(try Self.tlsConfiguration())
                }
                configuration = PostgresClient.Configuration(
                    host: parts.host,
                    port: parts.port,
                    username: parts.user,
                    password: parts.password,
                    database: parts.database,
                    tls: tls
                )
            }
            configuration.options.maximumConnections = max(1, maximumConnections)
            configuration.options.connectTimeout = connectTimeout
            return configuration
        }

        /// The registry connection's configuration.
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let parts = try parts()
            var configuration: PostgresConnection.Configuration
            if let directory = parts.socketDirectory {
                configuration = PostgresConnection.Configuration(
                    unixSocketPath: "\(directory)/.s.PGSQL.\(parts.port)",
                    username: parts.user,
                    password: parts.password,
                    database: parts.database
                )
            } else {
                let tls: PostgresConnection.Configuration.TLS
                switch parts.sslMode {
                case "disable": tls = .disable
                case "require": tls = .require(try NIOSSLContext(configuration: Self.tlsConfiguration()))
                default: tls = .prefer(try NIOSSLContext(configuration: Self.tlsConfiguration()))
                }
                configuration = PostgresConnection.Configuration(
                    host: parts.host,
                    port: parts.port,
                    username: parts.user,
                    password: parts.password,
                    database: parts.database,
                    tls: tls
                )
            }
            configuration.options.connectTimeout = TimeAmount.nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000)
            return configuration
        }

        private static func tlsConfiguration() throws -> TLSConfiguration {
            TLSConfiguration.makeClientConfiguration()
        }

        /// Where the database server is, for a message: `HOST:PORT`, or the Unix socket's path.
        public var serverAddress: String {
            guard let parts = try? parts() else { return redactedDescription }
            if let directory = parts.socketDirectory { return "\(directory)/.s.PGSQL.\(parts.port)" }
            return parts.host.contains(":") ? "[\(parts.host)]:\(parts.port)" : "\(parts.host):\(parts.port)"
        }

        /// The URL without its password, for logs and banners.
        public var redactedDescription: String { Self.redacted(url.absoluteString) }

        static func redacted(_ text: String) -> String {
            guard var components = URLComponents(string: text), components.password != nil else { return text }
            components.password = "***"
            return components.string ?? text
        }
    }
}
