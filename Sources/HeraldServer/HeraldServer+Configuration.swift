import Foundation
import HeraldCore
import HeraldGateway
import HeraldStore

extension HeraldServer {
    /// Everything `herald serve` can be told; the defaults are its defaults.
    public struct Configuration: Sendable {
        /// The data directory: the SQLite file, and `tls/` with the development PKI.
        public var dataDirectory: URL
        /// The address every port listens on.
        public var host = "127.0.0.1"
        /// HTTP/2 over TLS (ALPN h2); `nil` disables it, `0` picks a free port.
        public var tlsPort: Int? = 2197
        /// Cleartext h2c with prior knowledge and HTTP/1.1; `nil` disables it, `0` picks a free port.
        public var cleartextPort: Int? = 2195
        /// The web port: device link and inspection API; `nil` disables it, `0` picks a free port.
        public var linkPort: Int? = 2196
        /// Whether devices may enrol themselves over the device link.
        public var allowsEnrolment = false
        /// The bearer token the web port's `/api/` and `/metrics` require (docs/console.md, "Access"); `nil`: none,
        /// which `herald serve` allows only on a loopback ``host``.
        public var apiToken: String?
        /// Notifications kept per app while its device is offline (Apple keeps 1).
        public var offlineSlotsPerApp = 1
        /// How long a notification without `apns-expiration` is kept for an offline device.
        public var defaultStorage: Duration = .seconds(30 * 24 * 3600)
        /// How long priority 5 and 1 notifications may be held to go out in bursts.
        public var lowPriorityBurstWindow: Duration = .seconds(1)
        /// How long finished notifications (delivered, expired, replaced, discarded) and their traces are kept;
        /// `nil` keeps them forever.
        public var retention: Duration? = .seconds(7 * 24 * 3600)
        /// How long a graceful shutdown (SIGTERM, SIGINT) may take before the services are cancelled: in-flight
        /// provider streams finish and the delivery journal is flushed within it, or given up (a change not
        /// written leaves its notification `stored`, so it is delivered again after a restart, never lost).
        public var shutdownTimeout: Duration = .seconds(30)
        /// The environment this gateway serves.
        public var environment: APNSEnvironment = .sandbox
        /// A server certificate (PEM) instead of the development one, with ``tlsKeyPath``.
        public var tlsCertificatePath: String?
        /// The server private key (PEM) for ``tlsCertificatePath``.
        public var tlsKeyPath: String?
        /// Extra CAs (PEM) whose client certificates authenticate providers (the development CA always does).
        public var clientCAPaths: [String] = []
        /// `SETTINGS_MAX_CONCURRENT_STREAMS` after authentication.
        public var maximumConcurrentStreams = 1000
        /// Streams a token-auth connection gets before its first valid token.
        public var initialConcurrentStreams = 1
        /// How long a connection may stay idle before `GOAWAY`.
        public var idleTimeout: Duration = .seconds(3600)
        /// How long a provider connection may take to finish TLS and send its first bytes before it is closed.
        public var handshakeTimeout: Duration = .seconds(10)
        /// Open provider connections per process; more are closed at accept.
        public var maximumConnections = 10_000
        /// Notifications per second per device token before `TooManyRequests`; 0 = no limit.
        public var perTokenRateLimit = 0
        /// The form of the `apns-id` made for a request without one.
        public var generatedIDFormat: GeneratedIDFormat = .timeOrdered
        /// Event-loop threads for the gateway; `nil` = one per core.
        public var eventLoopThreads: Int?
        /// Event-loop threads for the web port; `nil` = one per core.
        public var webEventLoopThreads: Int?
        /// SQLite's synchronous mode.
        public var synchronous: SQLiteStore.SynchronousMode = .full
        /// How long the web console's `GET /api/v1/events?after=` waits for an event.
        public var consoleLongPollTimeout: Duration = .seconds(25)
        /// How long the web console's `POST /api/v1/devices/{id}/interactions` waits for the device.
        public var consoleInteractionTimeout: Duration = .seconds(5)
        /// Fault rules in force from the start (`herald serve --faults FILE`, docs/faults.md); more can be added to
        /// ``HeraldServer/faults`` while it runs.
        public var faults: [FaultRule] = []
        /// The time every rule reads (token age, expiration) and every trace event is stamped with.
        public var clock: any WallClock = SystemWallClock()

        /// The defaults of `herald serve`, on this data directory.
        public init(dataDirectory: URL) {
            self.dataDirectory = dataDirectory
        }

        /// Where the development PKI is kept: `tls/` under the data directory.
        public var tlsDirectory: URL { dataDirectory.appendingPathComponent("tls", isDirectory: true) }
    }
}
