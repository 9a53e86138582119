import Foundation
import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldPostgres
import HeraldStore
import HeraldWeb

extension HeraldServer {
    /// Everything `herald serve` can be told, as each component's own configuration; the defaults are its defaults.
    ///
    /// Built once (by `herald serve` from its options, by the testing kit from its options) and handed whole to
    /// ``HeraldServer/init(configuration:logger:)``, which passes each part to its component unchanged.
    public struct Configuration: Sendable {
        /// The data directory: the SQLite file, and `tls/` with the development PKI.
        public var dataDirectory: URL {
            didSet { store.dataDirectory = dataDirectory.path }
        }
        /// The provider API: its address and ports (`nil` disables one, `0` picks a free port), limits and rules.
        ///
        /// Its ``GatewayConfiguration/tls`` is filled in at start from ``tls`` and the development PKI.
        public var gateway = GatewayConfiguration()
        /// The provider API's TLS files besides the development PKI's.
        public var tls = TLSFiles()
        /// The delivery engine's rules: offline slots, default storage, low-priority bursts.
        public var delivery = DeliveryPolicy()
        /// How long a notification's `sent` trace event may wait to be written together with its acknowledgement
        /// (``DeliveryEngine/Configuration/sentTraceHold``); `.zero` writes it at once.
        public var sentTraceHold: Duration = .milliseconds(200)
        /// The shortest time between two writes of the delivery journal (``DeliveryEngine/Configuration/journalInterval``).
        public var journalInterval: Duration = .milliseconds(10)
        /// The SQLite store; its data directory follows ``dataDirectory``. Unused when ``database`` is set.
        public var store: SQLiteStore.Configuration
        /// A PostgreSQL database instead of the SQLite file (`herald serve --database`, docs/postgresql.md); `nil`: SQLite.
        /// The data directory still holds the TLS files and development keys.
        public var database: PostgresStore.Configuration?
        /// The web port (device link, console, inspection API, metrics); `nil` disables it.
        public var web: WebConfiguration? = WebConfiguration()
        /// The web console's time limits.
        public var console = ConsoleAPI.Configuration()
        /// How long finished notifications (delivered, expired, replaced, discarded) and their traces are kept;
        /// `nil` keeps them forever.
        public var retention: RetentionService.Configuration? = .init(retention: .seconds(7 * 24 * 3600))
        /// How long a graceful shutdown (SIGTERM, SIGINT) may take before the services are cancelled: in-flight
        /// provider streams finish and the delivery journal is flushed within it, or given up (a change not
        /// written leaves its notification `stored`, so it is delivered again after a restart, never lost).
        public var shutdownTimeout: Duration = .seconds(30)
        /// Fault rules in force from the start (`herald serve --faults FILE`, docs/faults.md); more can be added to
        /// ``HeraldServer/faults`` while it runs.
        public var faults: [FaultRule] = []
        /// The time every rule reads (token age, expiration) and every trace event is stamped with.
        public var clock: any WallClock = SystemWallClock()

        /// The defaults of `herald serve`, on this data directory.
        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
            self.store = SQLiteStore.Configuration(dataDirectory: dataDirectory.path)
        }

        /// Where the development PKI is kept: `tls/` under the data directory.
        public var tlsDirectory: URL { dataDirectory.appendingPathComponent("tls", isDirectory: true) }
    }

    /// The provider API's TLS files besides the development PKI's: each one left out is the development one.
    public struct TLSFiles: Sendable {
        /// A server certificate (PEM) instead of the development one, with ``privateKeyPath``.
        public var certificatePath: String?
        /// The server private key (PEM) for ``certificatePath``.
        public var privateKeyPath: String?
        /// Extra CAs (PEM) whose client certificates authenticate providers (the development CA always does).
        public var clientCAPaths: [String] = []

        /// The development PKI's files only.
        public init() {}
    }
}
