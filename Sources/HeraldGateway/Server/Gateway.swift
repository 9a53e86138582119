import HeraldCore
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Prometheus
import ServiceLifecycle
import Synchronization

/// The APNs provider API server: a TLS listener and a cleartext listener that answer as APNs does.
///
/// Run it in a `ServiceGroup`; on graceful shutdown it stops accepting, sends GOAWAY `Shutdown` to every
/// connection, lets in-flight notifications commit and answer, then closes.
public actor Gateway: Service {
    private enum State {
        case idle
        case running(listeners: [any Channel])
        case stopped
    }

    let configuration: GatewayConfiguration
    let processor: ProviderRequestProcessor
    let group: MultiThreadedEventLoopGroup
    let logger: Logger
    let connections: ConnectionRegistry
    private var state = State.idle
    private var boundAddresses: [String: SocketAddress] = [:]
    private var readyContinuations: [CheckedContinuation<Void, any Error>] = []
    private let listening = Atomic<Bool>(false)

    /// Creates a gateway; nothing listens until `run()`.
    ///
    /// - Parameter metrics: where requests, latencies and connections are counted (docs/metrics.md); by
    ///   default a registry of the gateway's own that nothing reads.
    public init(
        configuration: GatewayConfiguration,
        services: ProviderServices,
        metrics: GatewayMetrics = GatewayMetrics(registry: PrometheusCollectorRegistry()),
        logger: Logger
    ) {
        self.configuration = configuration
        self.processor = ProviderRequestProcessor(configuration: configuration, services: services, metrics: metrics, logger: logger)
        self.connections = ConnectionRegistry(gauge: metrics.connections)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        self.logger = logger
    }

    /// The port the TLS listener is bound to, once running.
    public var tlsPort: Int? { boundAddresses["tls"]?.port }
    /// The port the cleartext listener is bound to, once running.
    public var cleartextPort: Int? { boundAddresses["cleartext"]?.port }
    /// The number of open provider connections.
    public var connectionCount: Int { connections.count }
    /// Whether the listeners are bound and not closing; readable from anywhere without waiting (the web port's
    /// `/readyz` reads it).
    public nonisolated var isListening: Bool { listening.load(ordering: .relaxed) }

    /// Waits until the listeners are bound (or `run()` failed to bind them).
    public func waitUntilReady() async throws {
        switch state {
        case .running: return
        case .stopped: throw GatewayError.notRunning
        case .idle: try await withCheckedThrowingContinuation { readyContinuations.append($0) }
        }
    }

    /// Binds the listeners and serves until graceful shutdown.
    public func run() async throws {
        let listeners: [any Channel]
        do {
            listeners = try await bindListeners()
        } catch {
            state = .stopped
            for continuation in readyContinuations { continuation.resume(throwing: error) }
            readyContinuations = []
            try? await group.shutdownGracefully()
            throw error
        }
        state = .running(listeners: listeners)
        listening.store(true, ordering: .relaxed)
        for continuation in readyContinuations { continuation.resume() }
        readyContinuations = []
        await withTaskCancellationOrGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let futures = listeners.map(\.closeFuture)
                EventLoopFuture.andAllComplete(futures, on: group.any()).whenComplete { _ in continuation.resume() }
            }
        } onCancelOrGracefulShutdown: {
            // Closing the listeners ends the wait above; connections are drained after it.
            self.listening.store(false, ordering: .relaxed)
            for listener in listeners { listener.close(promise: nil) }
        }
        listening.store(false, ordering: .relaxed)
        await drainConnections()
        state = .stopped
        try await group.shutdownGracefully()
    }

    /// Tells each connection to say GOAWAY `Shutdown`, waits for them (up to the grace period), then closes the rest.
    private func drainConnections() async {
        logger.info("gateway shutting down", metadata: ["gateway.connections": "\(connections.count)"])
        let open = connections.all
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .shutdown))
        }
        let loop = group.any()
        let forceClose = loop.scheduleTask(in: configuration.shutdownGracePeriod) {
            for channel in open { channel.close(promise: nil) }
        }
        try? await EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop).get()
        forceClose.cancel()
    }

    private func bindListeners() async throws -> [any Channel] {
        var listeners: [any Channel] = []
        if let port = configuration.cleartextPort {
            let channel = try await bootstrap(tls: nil).bind(host: configuration.host, port: port).get()
            boundAddresses["cleartext"] = channel.localAddress
            listeners.append(channel)
        }
        if let port = configuration.tlsPort {
            guard let tls = configuration.tls else { throw GatewayError.missingTLSConfiguration }
            let context = try Self.makeSSLContext(tls)
            let channel = try await bootstrap(tls: context).bind(host: configuration.host, port: port).get()
            boundAddresses["tls"] = channel.localAddress
            listeners.append(channel)
        }
        logger.info(
            "gateway listening",
            metadata: [
                "gateway.tls_port": "\(boundAddresses["tls"]?.port.map(String.init) ?? "off")",
                "gateway.cleartext_port": "\(boundAddresses["cleartext"]?.port.map(String.init) ?? "off")",
            ]
        )
        return listeners
    }

    private static func makeSSLContext(_ tls: GatewayConfiguration.TLS) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(tls.certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2", "http/1.1"]
        if !tls.clientCAPaths.isEmpty {
            // Certificate auth: a client certificate is optional (token auth needs none) but verified when sent.
            configuration.certificateVerification = .optionalVerification
            let roots = try tls.clientCAPaths.flatMap { try NIOSSLCertificate.fromPEMFile($0) }
            configuration.trustRoots = .certificates(roots)
        }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Errors the gateway reports when it cannot start.
public struct GatewayError: Error, CustomStringConvertible, Sendable {
    private enum Code {
        case missingTLSConfiguration
        case notRunning
    }

    private let code: Code

    /// A TLS port was configured without certificate and key.
    public static let missingTLSConfiguration = GatewayError(code: .missingTLSConfiguration)
    /// The gateway stopped or failed to start.
    public static let notRunning = GatewayError(code: .notRunning)

    public var description: String {
        switch code {
        case .missingTLSConfiguration: "a TLS port needs a certificate and a private key"
        case .notRunning: "the gateway is not running"
        }
    }
}
