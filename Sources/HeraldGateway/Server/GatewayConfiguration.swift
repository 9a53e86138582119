import HeraldCore
import HeraldWebPush
import NIOCore

/// How a gateway listens and which rules it applies.
public struct GatewayConfiguration: Sendable {
    /// A TLS listener's files.
    public struct TLS: Sendable {
        /// PEM file with the server certificate (chain).
        public var certificatePath: String
        /// PEM file with the server's private key.
        public var privateKeyPath: String
        /// PEM files of CAs whose client certificates authenticate providers (certificate auth).
        public var clientCAPaths: [String]

        /// Creates a TLS configuration.
        public init(certificatePath: String, privateKeyPath: String, clientCAPaths: [String] = []) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.clientCAPaths = clientCAPaths
        }
    }

    /// The address to bind.
    public var host = "127.0.0.1"
    /// The TLS port (HTTP/2 with ALPN `h2`, or no ALPN); `nil` disables it; 0 picks a free port.
    public var tlsPort: Int? = 2197
    /// The cleartext port (h2c with prior knowledge, and HTTP/1.1); `nil` disables it; 0 picks a free port.
    public var cleartextPort: Int? = 2195
    /// The TLS files; required when `tlsPort` is set.
    public var tls: TLS?
    /// The environment this gateway serves, like Apple's two hosts.
    public var environment: APNSEnvironment = .sandbox
    /// SETTINGS_MAX_CONCURRENT_STREAMS once a connection has authenticated (spec §A.1 recommends 1 before).
    public var maximumConcurrentStreams = 1000
    /// SETTINGS_MAX_CONCURRENT_STREAMS of a token-auth connection before its first valid token (spec §A.1: one).
    public var initialConcurrentStreams = 1
    /// How long a connection may be idle before GOAWAY `IdleTimeout`.
    public var idleTimeout: TimeAmount = .hours(1)
    /// How long graceful shutdown waits for in-flight streams before closing connections.
    public var shutdownGracePeriod: TimeAmount = .seconds(10)
    /// Notifications per second accepted for one device token before `TooManyRequests`; 0 means no limit.
    public var perTokenRateLimit = 0
    /// The form of the `apns-id` made for a request without one (the `apns-unique-id` is always random).
    public var generatedIDFormat: GeneratedIDFormat = .timeOrdered
    /// The reasons chosen where Apple's are undocumented.
    public var policy = ValidationPolicy()
    /// The push service's choices where Apple is silent (docs/web-push.md, "Herald's choices").
    public var webPush = WebPushPolicy()
    /// The bounds on what one client may make the server hold (docs/provider-api.md, "Limits").
    public var limits = Limits()
    /// Event-loop threads; defaults to the number of cores.
    public var eventLoopThreads = System.coreCount

    /// The default configuration.
    public init() {}
}
