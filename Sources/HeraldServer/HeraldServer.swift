import Foundation
import HeraldAuth
import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldStore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The parts of `herald serve`, wired once: the SQLite store, the delivery engine, the gateway (TLS with the
/// development PKI, and h2c) and the web port (device link and inspection API).
///
/// `herald serve` and the testing kit both build one. Creating it opens the store and restores the engine
/// (what got `200` before a stop is delivered from there); nothing listens until its ``services`` run in a
/// `ServiceGroup`. After the group has finished, call ``shutdown()`` to close the store.
public struct HeraldServer: Sendable {
    /// The store (accepted notifications, traces, devices, tokens, keys).
    public let store: SQLiteStore
    /// The delivery engine.
    public let engine: DeliveryEngine
    /// The provider API.
    public let gateway: Gateway
    /// The fault rules in force on the provider API (docs/faults.md).
    public let faults: FaultTable
    /// The device link and inspection API, unless the web port is disabled.
    public let web: DeviceLinkServer?
    /// The development PKI, when TLS is on.
    public let pki: DevelopmentPKI?
    /// The web console's live state: devices' screens, interactions, events.
    public let console: ConsoleHub
    private let consolePushes: ConsolePushes
    /// The configuration it was built from.
    public let configuration: Configuration
    /// Deletes finished notifications after the retention time, unless retention is off.
    public let retention: RetentionService?
    /// Hands tokens unregistered by another process (`herald tokens unregister`) to the engine.
    public let unregistrationWatch: UnregistrationWatch

    /// Opens the store, restores the engine and builds the servers.
    ///
    /// - Throws: when the data directory, the store or the PKI cannot be opened or created.
    public init(configuration: Configuration, logger: Logger) async throws {
        self.configuration = configuration
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        var storeConfiguration = SQLiteStore.Configuration(dataDirectory: configuration.dataDirectory.path)
        storeConfiguration.synchronous = configuration.synchronous
        let store = try SQLiteStore(configuration: storeConfiguration, clock: configuration.clock, logger: logger)

        var gatewayConfiguration = GatewayConfiguration()
        gatewayConfiguration.host = configuration.host
        gatewayConfiguration.tlsPort = configuration.tlsPort
        gatewayConfiguration.cleartextPort = configuration.cleartextPort
        gatewayConfiguration.environment = configuration.environment
        gatewayConfiguration.maximumConcurrentStreams = configuration.maximumConcurrentStreams
        gatewayConfiguration.initialConcurrentStreams = configuration.initialConcurrentStreams
        gatewayConfiguration.idleTimeout = TimeAmount(configuration.idleTimeout)
        gatewayConfiguration.limits.handshakeTimeout = TimeAmount(configuration.handshakeTimeout)
        gatewayConfiguration.limits.maximumConnections = configuration.maximumConnections
        gatewayConfiguration.perTokenRateLimit = configuration.perTokenRateLimit
        gatewayConfiguration.generatedIDFormat = configuration.generatedIDFormat
        if let threads = configuration.eventLoopThreads { gatewayConfiguration.eventLoopThreads = threads }
        var pki: DevelopmentPKI?
        do {
            if configuration.tlsPort != nil {
                let loaded = try DevelopmentPKI.loadOrCreate(in: configuration.tlsDirectory, now: Date())
                gatewayConfiguration.tls = .init(
                    certificatePath: configuration.tlsCertificatePath ?? loaded.files.serverCertificate.path,
                    privateKeyPath: configuration.tlsKeyPath ?? loaded.files.serverPrivateKey.path,
                    clientCAPaths: [loaded.files.caCertificate.path] + configuration.clientCAPaths
                )
                pki = loaded
            }
        } catch {
            await store.shutdown()
            throw error
        }

        var engineConfiguration = DeliveryEngine.Configuration()
        engineConfiguration.policy.offlineSlotsPerApp = configuration.offlineSlotsPerApp
        engineConfiguration.policy.defaultStorage = configuration.defaultStorage
        engineConfiguration.policy.lowPriorityBurstWindow = configuration.lowPriorityBurstWindow
        // One registry for the whole process, read by `GET /metrics` on the web port (docs/metrics.md).
        let metrics = PrometheusCollectorRegistry()
        let console = ConsoleHub()
        let engine = DeliveryEngine(
            store: store,
            configuration: engineConfiguration,
            clock: configuration.clock,
            metrics: DeliveryMetrics(registry: metrics),
            onTraceRecorded: { console.traceRecorded($0, event: $1.rawValue) },
            logger: logger
        )
        // Before the gateway accepts: what got `200` before a crash or a stop is delivered from here.
        do {
            try await engine.restore()
        } catch {
            await store.shutdown()
            throw error
        }

        let faults = FaultTable()
        do {
            for rule in configuration.faults { try faults.add(rule) }
        } catch {
            await store.shutdown()
            throw error
        }
        let services = ProviderServices(
            store: store,
            clock: configuration.clock,
            onAccepted: { engine.accepted($0, sequence: $1) },
            faults: faults
        )
        let gateway = Gateway(
            configuration: gatewayConfiguration,
            services: services,
            metrics: GatewayMetrics(registry: metrics),
            logger: logger
        )
        let consolePushes: ConsolePushes
        do {
            consolePushes = try ConsolePushes(
                store: store,
                rules: ProviderRequestRules(environment: gatewayConfiguration.environment, policy: gatewayConfiguration.policy),
                verifier: services.verifier,
                gateway: gateway,
                host: configuration.host,
                caFile: pki?.files.caCertificate.path,
                serverCertificateFile: configuration.tlsCertificatePath,
                clock: configuration.clock
            )
        } catch {
            await store.shutdown()
            throw error
        }
        var consoleConfiguration = ConsoleAPI.Configuration()
        consoleConfiguration.longPollTimeout = configuration.consoleLongPollTimeout
        consoleConfiguration.interactionTimeout = configuration.consoleInteractionTimeout
        let consoleAPI = ConsoleAPI(hub: console, pushes: consolePushes, configuration: consoleConfiguration)
        if let linkPort = configuration.linkPort {
            var linkConfiguration = DeviceLinkServer.Configuration()
            linkConfiguration.host = configuration.host
            linkConfiguration.port = linkPort
            linkConfiguration.allowsEnrolment = configuration.allowsEnrolment
            linkConfiguration.access = WebAccessPolicy(
                apiToken: configuration.apiToken,
                loopbackOnly: WebAccessPolicy.isLoopbackAddress(configuration.host)
            )
            if let threads = configuration.webEventLoopThreads { linkConfiguration.eventLoopThreads = threads }
            web = DeviceLinkServer(
                configuration: linkConfiguration,
                registry: store,
                engine: engine,
                // The console's routes first: the inspection API answers every other /api/v1/ path. The page last: it
                // answers only `/` and `/console`, never a path under `/api/`.
                responders: [
                    consoleAPI, InspectionAPI(store: store, engine: engine, screens: console), MetricsEndpoint(registry: metrics), ConsoleResponder(),
                ],
                clock: configuration.clock,
                console: console,
                logger: logger
            )
        } else {
            web = nil
        }
        self.retention = configuration.retention.map { retention in
            RetentionService(
                store: store,
                configuration: .init(retention: retention),
                clock: configuration.clock,
                registry: metrics,
                logger: logger
            )
        }
        self.unregistrationWatch = UnregistrationWatch(
            store: store,
            engine: engine,
            interval: .milliseconds(storeConfiguration.registryRefreshIntervalMilliseconds),
            logger: logger
        )
        self.gateway = gateway
        self.faults = faults
        self.store = store
        self.engine = engine
        self.pki = pki
        self.console = console
        self.consolePushes = consolePushes
    }

    /// The services, in start order: graceful shutdown runs in reverse, so the gateway stops accepting first
    /// and the engine writes its journal last.
    public var services: [any Service] {
        var services: [any Service] = [engine, unregistrationWatch]
        if let retention { services.append(retention) }
        if let web { services.append(web) }
        services.append(gateway)
        return services
    }

    /// Returns once every port is listening. Fails when a service stopped before it bound its port.
    public func waitUntilReady() async throws {
        try await gateway.waitUntilReady()
        try await web?.waitUntilReady()
    }

    /// Closes the store, committing what is queued; call after the services have stopped.
    public func shutdown() async {
        await consolePushes.shutdown()
        await store.shutdown()
    }
}
