import Foundation
import HeraldAuth
import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldPostgres
import HeraldStore
import HeraldWeb
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The parts of `herald serve`, wired once: the store (SQLite, or PostgreSQL for several nodes), the delivery engine, the gateway (TLS with the
/// development PKI, and h2c) and the web port (device link and inspection API).
///
/// `herald serve` and the testing kit both build one. Creating it opens the store and restores the engine
/// (what got `200` before a stop is delivered from there); nothing listens until its ``services`` run in a
/// `ServiceGroup`. After the group has finished, call ``shutdown()`` to close the store.
public struct HeraldServer: Sendable {
    /// The store (accepted notifications, traces, devices, tokens, keys): SQLite in the data directory, or PostgreSQL when
    /// ``Configuration/database`` is set.
    public let store: any NotificationStore
    /// The delivery engine.
    public let engine: DeliveryEngine
    /// The provider API.
    public let gateway: Gateway
    /// The fault rules in force on the provider API (docs/faults.md).
    public let faults: FaultTable
    /// The web pushes the push service refused, kept in memory for their traces (docs/web-push.md).
    public let webPushRefusals: WebPushRefusalLog
    /// Which devices subscribe to which broadcast channels, and the fan-out of each broadcast (docs/broadcast.md).
    public let channels: ChannelHub
    /// The device link and inspection API, unless the web port is disabled.
    public let web: WebServer?
    /// The development PKI, when TLS is on.
    public let pki: DevelopmentPKI?
    /// The web console's live state: devices' screens, interactions, events.
    public let console: ConsoleHub
    private let consolePushes: ConsolePushes
    /// The configuration it was built from.
    public let configuration: Configuration
    /// Deletes finished notifications after the retention time and over the disk budget, unless both are off.
    public let retention: RetentionService?
    /// On a cluster node with a web port: the console across nodes.
    let consoleRelay: ConsoleRelay?
    /// Hands tokens unregistered by another process (`herald tokens unregister`) to the engine.
    public let unregistrationWatch: UnregistrationWatch

    /// Opens the store, restores the engine and builds the servers.
    ///
    /// - Throws: when the data directory, the store or the PKI cannot be opened or created.
    public init(configuration: Configuration, logger: Logger) async throws {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let store: any NotificationStore
        if let database = configuration.database {
            let postgres = try await PostgresStore.open(configuration: database, clock: configuration.clock, logger: logger)
            if database.cluster != nil {
                // Before any device connects here: the first heartbeat drops the routes a previous run of this node left.
                do {
                    try await postgres.heartbeat()
                } catch {
                    await postgres.shutdown()
                    throw error
                }
            }
            store = postgres
        } else {
            store = try SQLiteStore(configuration: configuration.store, clock: configuration.clock, logger: logger)
        }
        // The one clean-up: everything after the store either succeeds or leaves only the store to close.
        do {
            self = try await HeraldServer(configuration: configuration, store: store, logger: logger)
        } catch {
            await store.shutdown()
            throw error
        }
    }

    private init(configuration: Configuration, store: any NotificationStore, logger: Logger) async throws {
        var gatewayConfiguration = configuration.gateway
        let pki = try gatewayConfiguration.tlsPort.map { _ in try DevelopmentPKI.loadOrCreate(in: configuration.tlsDirectory, now: Date()) }
        if let pki {
            gatewayConfiguration.tls = .init(
                certificatePath: configuration.tls.certificatePath ?? pki.files.serverCertificate.path,
                privateKeyPath: configuration.tls.privateKeyPath ?? pki.files.serverPrivateKey.path,
                clientCAPaths: [pki.files.caCertificate.path] + configuration.tls.clientCAPaths
            )
        }
        // One registry for the whole process, read by `GET /metrics` on the web port (docs/metrics.md).
        let metrics = PrometheusCollectorRegistry()
        metrics.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_build_info",
                unitName: "",
                helpText: "Always 1; its version label is the Herald that serves (herald --version)."
            ),
            labels: [("version", HeraldVersion.current)]
        ).set(to: 1)
        let console = ConsoleHub()
        // A cluster node's shared store (docs/cluster.md); `nil` on a single node.
        let cluster: (any ClusterStore)? = configuration.database?.cluster == nil ? nil : store as? any ClusterStore
        var engineConfiguration = DeliveryEngine.Configuration()
        engineConfiguration.policy = configuration.delivery
        engineConfiguration.sentTraceHold = configuration.sentTraceHold
        engineConfiguration.journalInterval = configuration.journalInterval
        let engine = DeliveryEngine(
            store: store,
            configuration: engineConfiguration,
            clock: configuration.clock,
            metrics: DeliveryMetrics(registry: metrics),
            onTraceRecorded: { console.traceRecorded($0, event: $1.rawValue) },
            cluster: cluster,
            logger: logger
        )
        // Before the gateway accepts: what got `200` before a crash or a stop is delivered from here. A cluster node
        // restores nothing: what waits is read when its device connects, on whichever node (docs/cluster.md).
        if cluster == nil { try await engine.restore() }

        let faults = FaultTable(log: FaultLog(onRecorded: { console.traceRecorded($0, event: "fault") }))
        for rule in configuration.faults { try faults.add(rule) }
        let channels = ChannelHub(metrics: BroadcastMetrics(registry: metrics)) { message, sentTo in
            logger.debug("broadcast", metadata: ["channel": "\(message.channelID)", "request_id": "\(message.requestID)", "sent_to": "\(sentTo)"])
        }
        var services = ProviderServices(
            store: store,
            clock: configuration.clock,
            onAccepted: { engine.accepted($0, sequence: $1, deviceFault: $2) },
            faults: faults
        )
        services.onBroadcast = { channels.broadcast($0) }
        let webPushRefusals = WebPushRefusalLog(onRecorded: { console.traceRecorded($0, event: "refused") })
        services.webPushRefusals = webPushRefusals
        services.onChannelDeleted = { channels.channelDeleted(ChannelKey(channelID: $0, bundleID: $1, environment: $2)) }
        services.maximumBroadcastStorageSeconds = configuration.delivery.broadcastStorage.components.seconds
        let gateway = Gateway(configuration: gatewayConfiguration, services: services, metrics: GatewayMetrics(registry: metrics), logger: logger)
        let consolePushes = try ConsolePushes(
            store: store,
            rules: ProviderRequestRules(environment: gatewayConfiguration.environment, policy: gatewayConfiguration.policy),
            verifier: services.verifier,
            gateway: gateway,
            host: gatewayConfiguration.host,
            caFile: pki?.files.caCertificate.path,
            serverCertificateFile: configuration.tls.certificatePath,
            clock: configuration.clock
        )
        self.web = configuration.web.map { webConfiguration in
            var routes = WebRoutes()
            ConsoleAPI(hub: console, pushes: consolePushes, configuration: configuration.console).addRoutes(to: &routes)
            InspectionAPI(
                store: store,
                engine: engine,
                screens: console,
                extraTrace: { Self.faultTrace(faults.log, $0) + Self.refusalTrace(webPushRefusals, $0) },
                channels: channels,
                clock: configuration.clock,
                cluster: cluster
            )
            .addRoutes(to: &routes)
            MetricsEndpoint(registry: metrics).addRoutes(to: &routes)
            FaultsAPI(faults: faults, clock: configuration.clock).addRoutes(to: &routes)
            ResetAPI(reset: { try await Self.reset(store: store, engine: engine, faults: faults, refusals: webPushRefusals, options: $0) })
                .addRoutes(to: &routes)
            ConsoleResponder().addRoutes(to: &routes)
            var webConfiguration = webConfiguration
            let usesTLS = gatewayConfiguration.tlsPort != nil
            webConfiguration.webPush.providerPort = { await Self.pushServicePort(of: gateway, usesTLS: usesTLS) }
            return WebServer(
                configuration: webConfiguration,
                registry: store,
                engine: engine,
                channels: channels,
                channelStore: store,
                routes: routes,
                metrics: metrics,
                clock: configuration.clock,
                console: console,
                readiness: Self.readinessConditions(store: store, gateway: gateway, isClusterNode: cluster != nil),
                logger: logger
            )
        }
        // A cluster node's console shows and drives every node's devices (docs/cluster.md, "The console").
        self.consoleRelay = (configuration.web == nil ? nil : cluster as? any ConsoleClusterStore).map { store in
            var relayConfiguration = ConsoleRelay.Configuration()
            relayConfiguration.interactionTimeout = configuration.console.interactionTimeout
            return ConsoleRelay(hub: console, store: store, configuration: relayConfiguration, metrics: metrics, logger: logger)
        }
        self.retention = configuration.retention.flatMap { retention in
            // Also for the disk budget alone (docs/delivery.md, "Retention").
            retention.retention == nil && (configuration.database != nil || configuration.store.maximumStoreBytes == nil)
                ? nil
                : RetentionService(store: store, configuration: retention, clock: configuration.clock, registry: metrics, logger: logger)
        }
        self.unregistrationWatch = UnregistrationWatch(
            store: store,
            engine: engine,
            interval: .milliseconds(
                configuration.database?.registryRefreshIntervalMilliseconds ?? configuration.store.registryRefreshIntervalMilliseconds
            ),
            logger: logger
        )
        self.configuration = configuration
        self.gateway = gateway
        self.channels = channels
        self.faults = faults
        self.webPushRefusals = webPushRefusals
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
        if let consoleRelay { services.append(consoleRelay) }
        if let web { services.append(web) }
        services.append(gateway)
        return services
    }

    /// Returns once every port is listening. Fails when a service stopped before it bound its port.
    public func waitUntilReady() async throws {
        try await gateway.waitUntilReady()
        try await web?.waitUntilReady()
    }

    /// The provider port web push endpoints name (docs/web-push.md): the TLS port, or the cleartext one when there is no
    /// TLS port; `nil` until the gateway listens.
    static func pushServicePort(of gateway: Gateway, usesTLS: Bool) async -> WebPushEndpoints.ProviderPort? {
        if usesTLS { return await gateway.tlsPort.map { WebPushEndpoints.ProviderPort(scheme: "https", port: $0) } }
        return await gateway.cleartextPort.map { WebPushEndpoints.ProviderPort(scheme: "http", port: $0) }
    }

    /// Closes the store, committing what is queued; call after the services have stopped.
    public func shutdown() async {
        await consolePushes.shutdown()
        await store.shutdown()
    }
}
