import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

/// A live web port on an ephemeral port with a real ``SQLiteStore`` in a temporary folder (or another
/// registry a test passes) and an engine (tier 3).
///
/// By default the engine is not run: tests read its inputs (``engineInput(where:)``) to see exactly what the
/// link told it, and drive the ``DeviceSession`` it was given. With `runsEngine` it runs in the same
/// `ServiceGroup` (end-to-end tests); its inputs are then its own.
final class LinkServerFixture: Sendable {
    let server: WebServer
    let engine: DeliveryEngine
    let registry: any DeviceRegistry
    let store: SQLiteStore
    let clock: ManualWallClock
    let port: Int
    let clientGroup: MultiThreadedEventLoopGroup
    /// Engine inputs ``engineInput(where:)`` took from the engine's inbox and has not returned yet.
    let unreadEngineInputs = Mutex<[DeliveryEngine.Event]>([])
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(
        server: WebServer,
        engine: DeliveryEngine,
        registry: any DeviceRegistry,
        store: SQLiteStore,
        clock: ManualWallClock,
        port: Int,
        serviceGroup: ServiceGroup,
        runTask: Task<Void, any Error>
    ) {
        self.server = server
        self.engine = engine
        self.registry = registry
        self.store = store
        self.clock = clock
        self.port = port
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Starts a server (serving the inspection API when `inspection`), runs `body`, and always stops it.
    static func with<T>(
        configuration: WebConfiguration = .init(),
        registry: (any DeviceRegistry)? = nil,
        inspection: Bool = false,
        runsEngine: Bool = false,
        _ body: (LinkServerFixture) async throws -> T
    ) async throws -> T {
        let fixture = try await start(configuration: configuration, registry: registry, inspection: inspection, runsEngine: runsEngine)
        do {
            let result = try await body(fixture)
            await fixture.stop()
            return result
        } catch {
            await fixture.stop()
            throw error
        }
    }

    private static func start(
        configuration: WebConfiguration,
        registry: (any DeviceRegistry)?,
        inspection: Bool,
        runsEngine: Bool
    ) async throws -> LinkServerFixture {
        let clock = ManualWallClock(milliseconds: 1_700_000_000_000)
        var logger = Logger(label: "test.device-link")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-link-\(UUID().uuidString)").path
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory), clock: clock, logger: logger)
        let registry = registry ?? store
        var engineConfiguration = DeliveryEngine.Configuration()
        engineConfiguration.policy.lowPriorityBurstWindow = .zero
        let engine = DeliveryEngine(store: store, configuration: engineConfiguration, clock: clock, logger: logger)
        var routes = WebRoutes()
        if inspection { InspectionAPI(store: store, engine: engine).addRoutes(to: &routes) }
        var configuration = configuration
        configuration.port = 0
        configuration.eventLoopThreads = 1
        let server = WebServer(
            configuration: configuration,
            registry: registry,
            engine: engine,
            routes: routes,
            clock: clock,
            logger: logger
        )
        // The engine first, so that it stops after the server (a group stops services in reverse order).
        if runsEngine { try await engine.restore() }
        let services: [any Service] = runsEngine ? [engine, server] : [server]
        let serviceGroup = ServiceGroup(services: services, logger: logger)
        let runTask = Task { try await serviceGroup.run() }
        try await server.waitUntilReady()
        let port = try #require(await server.port)
        return LinkServerFixture(
            server: server,
            engine: engine,
            registry: registry,
            store: store,
            clock: clock,
            port: port,
            serviceGroup: serviceGroup,
            runTask: runTask
        )
    }

    /// Shuts the server down gracefully and waits for it, then stops the clients' event loop.
    func stop() async {
        await stopServer()
        try? await clientGroup.shutdownGracefully()
        await store.shutdown()
        try? FileManager.default.removeItem(atPath: store.configuration.dataDirectory)
    }

    /// Shuts the server down gracefully and waits for it, leaving clients' event loop running.
    func stopServer() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = try? await runTask.value
    }

    /// A device added to the registry: its id and secret.
    func addDevice(name: String = "test phone") async throws -> DeviceCredentials {
        try await registry.addDevice(name: name)
    }

    /// A client connected to the server (no hello yet).
    func connect() async throws -> DeviceLinkClient {
        try await DeviceLinkClient.connect(configuration: .init(host: "127.0.0.1", port: port), eventLoopGroup: clientGroup)
    }

    /// A client connected and authenticated as the device.
    func connect(as credentials: DeviceCredentials) async throws -> DeviceLinkClient {
        let client = try await connect()
        try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
        return client
    }
}

extension LinkServerFixture {
    /// The next input the link gave the engine that matches, waiting at most 10 s.
    func engineInput(where predicate: @escaping @Sendable (DeliveryEngine.Event) -> Bool) async throws -> DeliveryEngine.Event {
        let inbox = engine.inbox
        return try await withDeadline("an engine input") { [self] in
            while true {
                // What an earlier call took from the inbox after its match comes first.
                let batch = unreadEngineInputs.withLock { unread in
                    defer { unread = [] }
                    return unread
                }
                let events = batch.isEmpty ? await inbox.next() : batch
                guard let events else { break }
                if let index = events.firstIndex(where: predicate) {
                    unreadEngineInputs.withLock { $0 = Array(events[(index + 1)...]) + $0 }
                    return events[index]
                }
            }
            throw WaitTimedOut("an engine input: the inbox ended")
        }
    }
}

extension DeviceLinkClient {
    /// The next message on the stream, waiting at most 10 s; fails when the stream ends first.
    func nextMessage() async throws -> DeviceLinkServerMessage {
        let messages = self.messages
        return try await withDeadline("a message") {
            for await message in messages { return message }
            throw WaitTimedOut("a message: the link closed")
        }
    }
}
