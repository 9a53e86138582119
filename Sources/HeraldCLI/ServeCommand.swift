import ArgumentParser
import Foundation
import HeraldAuth
import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldPostgres
import HeraldServer
import HeraldStore
import HeraldWeb
import Logging
import NIOCore
import ServiceLifecycle

/// `herald serve`: the gateway on the embedded SQLite store, or on PostgreSQL with `--database`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the APNs provider API, delivery to devices, and the inspection API."
    )

    @OptionGroup var data: DataDirectoryOptions

    @OptionGroup(title: "Web push (docs/web-push.md)") var webPush: WebPushServeOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    // `.unconditional`: "-1" (off) is the value, not an unknown option.
    @Option(name: .customLong("tls-port"), parsing: .unconditional, help: "HTTP/2 over TLS port (ALPN h2); -1 disables it.")
    var tlsPort = 2197

    @Option(name: .customLong("h2c-port"), parsing: .unconditional, help: "Cleartext port: h2c with prior knowledge and HTTP/1.1; -1 disables it.")
    var cleartextPort = 2195

    @Option(
        name: .customLong("link-port"),
        parsing: .unconditional,
        help: "Web port: device link (WebSocket /device-link), inspection API, Prometheus /metrics and the web console (/); -1 disables it."
    )
    var linkPort = 2196

    @Option(
        name: .customLong("api-token"),
        help: "Bearer token the web port's /api/ and /metrics require (also HERALD_API_TOKEN); required with a --host that is not loopback."
    )
    var apiToken: String?

    @Flag(name: .customLong("allow-enrol"), help: "Let devices enrol themselves over the device link (hello with \"enrol\").")
    var allowEnrolment = false

    @Option(name: .customLong("offline-slots"), help: "Notifications kept per app while its device is offline (Apple keeps 1).")
    var offlineSlots = 1

    @Option(name: .customLong("storage-days"), help: "Days a notification without apns-expiration is kept for an offline device.")
    var storageDays = 30

    @Option(
        name: .customLong("broadcast-storage-hours"),
        help: "Hours a channel with storage policy 1 keeps its latest broadcast, at most (Apple: 8)."
    )
    var broadcastStorageHours = 8

    @Option(name: .customLong("low-priority-window-ms"), help: "Milliseconds priority 5 and 1 notifications may be held to go out in bursts.")
    var lowPriorityWindowMilliseconds = 1000

    @Option(
        name: .customLong("sent-trace-hold-ms"),
        help: "Milliseconds a notification's `sent` trace event may wait to be written with its acknowledgement (0: at once)."
    )
    var sentTraceHoldMilliseconds = 200

    @Option(
        name: .customLong("journal-interval-ms"),
        help: "Milliseconds between two writes of delivery changes (sent, acknowledged, …) at least, unless many queue up (0: none)."
    )
    var journalIntervalMilliseconds = 10

    @Option(help: "The environment this gateway serves: sandbox or production.")
    var environment = "sandbox"

    @Option(name: .customLong("tls-cert"), help: "Server certificate (PEM) instead of the development one.")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "Server private key (PEM), with --tls-cert.")
    var tlsKey: String?

    @Option(name: .customLong("client-ca"), help: "Extra CA (PEM) whose client certificates authenticate providers.")
    var clientCAs: [String] = []

    @Option(name: .customLong("max-streams"), help: "SETTINGS_MAX_CONCURRENT_STREAMS after authentication.")
    var maximumStreams = 1000

    @Option(name: .customLong("initial-streams"), help: "Streams a token-auth connection gets before its first valid token.")
    var initialStreams = 1

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay idle before GOAWAY IdleTimeout.")
    var idleTimeout = 3600

    @Option(name: .customLong("handshake-timeout"), help: "Seconds a provider connection may take to finish TLS and send its preface.")
    var handshakeTimeout = 10

    @Option(name: .customLong("max-connections"), help: "Open provider connections per process; more are closed at accept.")
    var maximumConnections = 10_000

    @Option(name: .customLong("per-token-rate"), help: "Notifications per second per device token before TooManyRequests; 0 = no limit.")
    var perTokenRate = 0

    @Option(
        name: .customLong("generated-apns-id"),
        help: "The apns-id made for a request without one: time-ordered (UUID version 7, the default) or random (version 4)."
    )
    var generatedAPNSID = GeneratedIDFormat.timeOrdered.rawValue

    @Option(
        name: .customLong("shutdown-timeout"),
        help: "Seconds a graceful shutdown (SIGTERM, SIGINT) may take before the services are cancelled."
    )
    var shutdownTimeout = 30

    @Option(
        name: .customLong("retention-hours"),
        help: "Hours finished notifications (delivered, expired, replaced, discarded) and their traces are kept; 0 keeps them forever."
    )
    var retentionHours = 168

    @Option(
        name: .customLong("max-store-mb"),
        help:
            "Disk budget of the store in MiB: finished notifications are pruned oldest first to stay under it; at it, new pushes get 503. 0: no budget."
    )
    var maxStoreMB: Int64 = 1024

    @Flag(
        name: .customLong("cluster"),
        help: "Run as one node of several on the --database they share (docs/cluster.md): devices and providers may use any node."
    )
    var cluster = false

    @Option(
        name: .customLong("node-id"),
        help: "This node's id in a --cluster: 1 to 48 letters, digits, '.', '_', ':' or '-' (default: host name and provider port)."
    )
    var nodeID: String?

    @Option(
        name: .customLong("node-lease"),
        help:
            "Seconds a --cluster node counts as alive after its last heartbeat (one a second); after it, other nodes keep its devices' notifications in the database. 2 to 300."
    )
    var nodeLease: Int = 5

    @Flag(
        name: .customLong("development-key"),
        inversion: .prefixedNo,
        help: "On a data directory without any signing key, make one for development, kept in <data-dir>/keys where `herald send` finds it."
    )
    var developmentKey = true

    @Option(name: .customLong("faults"), help: "A JSON file of fault rules in force from the start (docs/faults.md).")
    var faultsFile: String?

    @Option(name: .customLong("event-loops"), help: "Event-loop threads for each of the provider ports and the web port (default: one per core).")
    var eventLoops: Int?

    @Option(help: "SQLite synchronous mode: full or normal.")
    var synchronous = "full"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    /// The server's configuration from the options; throws a ``CLIFailure`` naming the first bad one.
    func makeConfiguration() throws -> HeraldServer.Configuration {
        let environment = try parseEnvironment(environment)
        // A port is 0 (any free one), 1 to 65535, or -1 (off); 99999 used to listen on 34463 (modulo 65536) and -5 to
        // turn the port off like -1.
        for (port, option) in [(tlsPort, "--tls-port"), (cleartextPort, "--h2c-port"), (linkPort, "--link-port")] where !(-1...65_535).contains(port)
        {
            throw CLIFailure("\(option) must be a port from 1 to 65535, 0 for any free port, or -1 to turn it off; not \(port)")
        }
        if let eventLoops, eventLoops < 1 { throw CLIFailure("--event-loops must be at least 1") }
        guard offlineSlots >= 1 else { throw CLIFailure("--offline-slots must be at least 1") }
        guard storageDays >= 0 else { throw CLIFailure("--storage-days must not be negative") }
        guard shutdownTimeout >= 1 else { throw CLIFailure("--shutdown-timeout must be at least 1") }
        guard retentionHours >= 0 else { throw CLIFailure("--retention-hours must not be negative") }
        guard (0...(1 << 40)).contains(maxStoreMB) else { throw CLIFailure("--max-store-mb must be between 0 and 2^40") }
        guard (0...(24 * 30)).contains(broadcastStorageHours) else { throw CLIFailure("--broadcast-storage-hours must be between 0 and 720") }
        guard (0...10_000).contains(sentTraceHoldMilliseconds) else { throw CLIFailure("--sent-trace-hold-ms must be between 0 and 10000") }
        guard (0...1_000).contains(journalIntervalMilliseconds) else { throw CLIFailure("--journal-interval-ms must be between 0 and 1000") }
        guard lowPriorityWindowMilliseconds >= 0 else { throw CLIFailure("--low-priority-window-ms must not be negative") }
        guard let generatedIDFormat = GeneratedIDFormat(rawValue: generatedAPNSID) else {
            throw CLIFailure("--generated-apns-id must be time-ordered or random, not \(generatedAPNSID)")
        }

        let apiToken = self.apiToken ?? ProcessInfo.processInfo.environment["HERALD_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let apiToken, !WebAccessPolicy.isValidToken(apiToken) {
            throw CLIFailure("--api-token must be 16 to 256 visible ASCII characters without ; , \" or \\")
        }
        if apiToken == nil, linkPort >= 0, !WebAccessPolicy.isLoopbackAddress(host) {
            throw CLIFailure(
                "--host \(host) is not a loopback address: the web port would let anyone on the network send pushes; "
                    + "give it a token with --api-token (or HERALD_API_TOKEN), e.g. --api-token $(openssl rand -hex 16)"
            )
        }

        var configuration = HeraldServer.Configuration(dataDirectory: data.url)
        configuration.gateway.host = host
        configuration.gateway.tlsPort = tlsPort >= 0 ? tlsPort : nil
        configuration.gateway.cleartextPort = cleartextPort >= 0 ? cleartextPort : nil
        configuration.gateway.environment = environment
        configuration.gateway.maximumConcurrentStreams = maximumStreams
        configuration.gateway.initialConcurrentStreams = initialStreams
        configuration.gateway.idleTimeout = .seconds(Int64(idleTimeout))
        configuration.gateway.limits.handshakeTimeout = .seconds(Int64(handshakeTimeout))
        configuration.gateway.limits.maximumConnections = maximumConnections
        configuration.gateway.perTokenRateLimit = perTokenRate
        configuration.gateway.generatedIDFormat = generatedIDFormat
        configuration.gateway.webPush = try webPush.policy()
        if let eventLoops { configuration.gateway.eventLoopThreads = eventLoops }
        configuration.tls.certificatePath = tlsCertificate
        configuration.tls.privateKeyPath = tlsKey
        configuration.tls.clientCAPaths = clientCAs
        configuration.delivery.offlineSlotsPerApp = offlineSlots
        configuration.delivery.defaultStorage = .seconds(Int64(storageDays) * 24 * 3600)
        configuration.delivery.lowPriorityBurstWindow = .milliseconds(lowPriorityWindowMilliseconds)
        configuration.sentTraceHold = .milliseconds(sentTraceHoldMilliseconds)
        configuration.journalInterval = .milliseconds(journalIntervalMilliseconds)
        configuration.delivery.broadcastStorage = .seconds(Int64(broadcastStorageHours) * 3600)
        configuration.store.synchronous = synchronous == "normal" ? .normal : .full
        configuration.web = linkPort >= 0 ? makeWebConfiguration(apiToken: apiToken) : nil
        if let origin = try webPush.endpointOrigin() { configuration.web?.webPush.origin = origin }
        configuration.web?.webPush.unsubscribeOnPermissionRemoval = configuration.gateway.webPush.removedPermission == .unregistered
        // The retention service also keeps the disk budget, so it is there even when retention by age is off.
        configuration.retention = .init(retention: retentionHours > 0 ? .seconds(Int64(retentionHours) * 3600) : nil)
        configuration.shutdownTimeout = .seconds(Int64(shutdownTimeout))
        configuration.store.maximumStoreBytes = maxStoreMB > 0 ? maxStoreMB * 1024 * 1024 : nil
        if let faultsFile { configuration.faults = try Self.faultRules(at: faultsFile) }
        if let databaseURL = data.databaseURL {
            do {
                configuration.database = try PostgresStore.Configuration(url: databaseURL)
                // One single node, or cluster nodes only, per database (docs/postgresql.md).
                configuration.database?.holdsServeLock = true
            } catch let error as StoreError {
                throw CLIFailure("--database: \(error.detail ?? "\(error)")")
            }
        }
        if cluster {
            guard configuration.database != nil else {
                throw CLIFailure("--cluster needs --database (or HERALD_DATABASE_URL): the nodes of a cluster share one PostgreSQL database")
            }
            let id = nodeID ?? Self.defaultNodeID(port: tlsPort > 0 ? tlsPort : cleartextPort)
            guard (2...300).contains(nodeLease) else {
                throw CLIFailure("--node-lease must be 2 to 300 seconds (a heartbeat is written every second), not \(nodeLease)")
            }
            do {
                configuration.database?.cluster = try PostgresStore.Configuration.Cluster(nodeID: id)
            } catch let error as StoreError {
                throw CLIFailure("--node-id: \(error.detail ?? "\(error)")")
            }
            configuration.database?.cluster?.lease = .seconds(nodeLease)
        } else if nodeID != nil {
            throw CLIFailure("--node-id needs --cluster")
        } else if nodeLease != 5 {
            throw CLIFailure("--node-lease needs --cluster")
        }
        return configuration
    }

    /// A node id made of the host name and the provider port (the process id when the port is chosen at start).
    static func defaultNodeID(port: Int) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        let host = String(ProcessInfo.processInfo.hostName.filter { allowed.contains($0) }.prefix(36))
        let suffix = port > 0 ? "\(port)" : "pid\(ProcessInfo.processInfo.processIdentifier)"
        return (host.isEmpty ? "herald" : host) + ":" + suffix
    }

    /// The rules of a `--faults` file; throws a ``CLIFailure`` naming the file and what is wrong.
    static func faultRules(at path: String) throws -> [FaultRule] {
        do {
            try SystemError.requireReadable(path)
        } catch let failure as CLIFailure {
            throw CLIFailure("--faults: \(failure.description)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("--faults \(path): cannot read the file")
        }
        let rules: [FaultRule]
        do {
            rules = try FaultRule.list(json: Array(data), nowMilliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        } catch {
            throw CLIFailure("--faults \(path): \(error.message)")
        }
        var ids = Set<String>()
        for id in rules.compactMap(\.id) where !ids.insert(id).inserted {
            throw CLIFailure("--faults \(path): two rules have the id '\(id)'")
        }
        return rules
    }

    /// The web port's configuration from the options (`--link-port`, `--host`, `--allow-enrol`, `--event-loops`, the token).
    private func makeWebConfiguration(apiToken: String?) -> WebConfiguration {
        var web = WebConfiguration()
        web.host = host
        web.port = linkPort
        web.allowsEnrolment = allowEnrolment
        web.access = WebAccessPolicy(apiToken: apiToken, loopbackOnly: WebAccessPolicy.isLoopbackAddress(host))
        if let eventLoops { web.eventLoopThreads = eventLoops }
        return web
    }

    /// The service group of `herald serve`: graceful shutdown on SIGTERM and SIGINT, escalated to cancellation
    /// after ``HeraldServer/Configuration/shutdownTimeout`` (so a journal that cannot write never holds the process).
    static func serviceGroupConfiguration(
        services: [any Service],
        configuration: HeraldServer.Configuration,
        logger: Logger
    ) -> ServiceGroupConfiguration {
        var group = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        return group
    }

    func run() async throws {
        try await reportingErrors {
            let configuration = try makeConfiguration()
            try preflight()
            let environment = configuration.gateway.environment
            var logger = Logger(label: "herald")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            let server: HeraldServer
            do {
                server = try await HeraldServer(configuration: configuration, logger: logger)
            } catch let error as StoreError where error == .unavailable && configuration.database != nil {
                throw unreachableDatabase(configuration.database!, error)
            }
            let keyLine: String
            do {
                keyLine = try await bannerKeyLine(server: server)
            } catch {
                await server.shutdown()
                throw error
            }
            let tlsSummary = server.pki.map { "trust \($0.files.caCertificate.path)" } ?? "off"
            let gateway = server.gateway
            let web = server.web
            let group = ServiceGroup(
                configuration: Self.serviceGroupConfiguration(services: server.services, configuration: configuration, logger: logger)
            )
            let host = self.host
            let apiToken = configuration.web?.access.apiToken
            let tokenQuery = apiToken.map { "?token=\($0)" } ?? ""
            let tokenNote = apiToken == nil ? "" : " (needs the API token: authorization: Bearer …)"
            let dataPath = data.url.standardizedFileURL.path
            let dataDirectory = data.dataDirectory
            let storeSummary =
                configuration.database.map { database in
                    "store: PostgreSQL \(database.redactedDescription)" + (database.cluster.map { ", cluster node \($0.nodeID)" } ?? "")
                } ?? "SQLite"
            let trust = tlsSummary
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tasks.addTask {
                    try await gateway.waitUntilReady()
                    try await web?.waitUntilReady()
                    let tls = await gateway.tlsPort
                    let cleartext = await gateway.cleartextPort
                    let webPort = await web?.port
                    let banner =
                        [
                            "Herald \(HeraldVersion.current) \(environment.rawValue) gateway",
                            "  data:       \(dataPath) (\(storeSummary))",
                            "  TLS:        \(tls.map { "https://\(host):\($0)" } ?? "off") (HTTP/2, ALPN h2; \(trust))",
                            "  cleartext:  \(cleartext.map { "http://\(host):\($0)" } ?? "off") (h2c prior knowledge, HTTP/1.1)",
                            "  devices:    \(webPort.map { "ws://\(host):\($0)/device-link" } ?? "off") (device link)",
                            "  inspection: \(webPort.map { "http://\(host):\($0)/api/v1/" } ?? "off")\(tokenNote)",
                            "  metrics:    \(webPort.map { "http://\(host):\($0)/metrics" } ?? "off") (Prometheus)\(tokenNote)",
                            "  console:    \(webPort.map { "http://\(host):\($0)/\(tokenQuery)" } ?? "off") (web console)",
                            keyLine, "herald: ready",
                            Self.nextStep(
                                Listening(host: host, tlsPort: tls, cleartextPort: cleartext, webPort: webPort, dataDirectory: dataDirectory)
                            ),
                        ]
                    FileHandle.standardOutput.write(Data((banner.joined(separator: "\n") + "\n").utf8))
                }
                try await tasks.waitForAll()
            }
            await server.shutdown()
        }
    }

    /// Makes the development key on a data directory without keys (unless `--no-development-key`) and returns the
    /// banner's `key:` line, on every start: the key `herald send` and `herald keys token` sign with by default.
    private func bannerKeyLine(server: HeraldServer) async throws -> String {
        if developmentKey,
            let made = try await LocalDevelopment.ensureDevelopmentKey(
                store: server.store,
                keysDirectory: data.keysDirectory,
                clock: server.configuration.clock
            )
        {
            let path = made.file.standardizedFileURL.path
            return "  key:        \(path) (key id \(made.keyID), team \(LocalDevelopment.developmentTeamID): "
                + "made for development; `herald send` and `herald keys token` sign with it)"
        }
        let kept = ProviderKeyLocator.keptKeys(in: data.keysDirectory)
        guard kept.count == 1, let keyID = ProviderKeyLocator.keyID(fromFileName: kept[0].lastPathComponent) else {
            let directory = data.keysDirectory.standardizedFileURL.path
            return kept.isEmpty
                ? "  key:        none in \(directory) (`herald keys generate --team-id TEAMID` makes one)"
                : "  key:        \(kept.count) keys in \(directory) (choose one with --key-id)"
        }
        let team = try await server.store.signingKeys().first { $0.keyID == keyID }?.teamID
        return "  key:        \(kept[0].standardizedFileURL.path) (key id \(keyID), team \(team ?? "not registered"); "
            + "`herald send` and `herald keys token` sign with it)"
    }
}

func parseEnvironment(_ text: String) throws -> APNSEnvironment {
    guard let environment = APNSEnvironment(rawValue: text) else {
        throw CLIFailure("unknown environment '\(text)' (expected sandbox or production)")
    }
    return environment
}
