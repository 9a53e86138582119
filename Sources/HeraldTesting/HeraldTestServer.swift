import Foundation
import HeraldAuth
import HeraldCore
import HeraldDelivery
import HeraldDeviceHost
import HeraldGateway
import HeraldPostgres
import HeraldServer
import HeraldStore
import Logging
import ServiceLifecycle

/// Starts a Herald server in-process — gateway (h2c and TLS), delivery engine, device link and inspection API,
/// wired exactly as `herald serve` wires them — on free ports with a SQLite store in a temporary directory,
/// runs `body`, and always shuts everything down (devices first, then the server) and removes the directory.
///
/// ```swift
/// try await withHeraldServer { server in
///     let phone = try await server.addDevice(apps: ["com.example.app"])
///     // … send with server.credentials to server.cleartextURL …
///     try await phone.expectNotification(titled: "Hello", in: "com.example.app", within: .seconds(5))
/// }
/// ```
public func withHeraldServer<T: Sendable>(
    _ options: HeraldTestServer.Options = .init(),
    _ body: (HeraldTestServer) async throws -> T
) async throws -> T {
    let server = try await HeraldTestServer.start(options)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await server.serviceGroup.run() }
        tasks.addTask { await server.devices.run() }
        let result: Result<T, any Error>
        do {
            try await server.server.waitUntilReady()
            try await server.resolveAddresses()
            result = .success(try await body(server))
        } catch {
            result = .failure(error)
        }
        server.devices.stop()
        await server.serviceGroup.triggerGracefulShutdown()
        do {
            try await tasks.waitForAll()
        } catch {
            if case .success = result {
                await server.removeFiles()
                throw error
            }
        }
        await server.removeFiles()
        return try result.get()
    }
}

/// A running in-process Herald server, made by ``withHeraldServer(_:_:)``.
public final class HeraldTestServer: Sendable {
    /// How the test server is set up.
    public struct Options: Sendable {
        /// The environment the gateway serves (and the default one of added apps).
        public var environment: APNSEnvironment = .sandbox
        /// Whether to serve HTTP/2 over TLS too (with a fresh development PKI).
        public var tls = true
        /// How long low-priority notifications may be held for bursts; zero (unlike `herald serve`) so that tests
        /// see them at once.
        public var lowPriorityBurstWindow: Duration = .zero
        /// Notifications kept per app while its device is offline (Apple keeps 1).
        public var offlineSlotsPerApp = 1
        /// The team id of the generated provider key.
        public var teamID = "TEAMHERALD"
        /// Server log level (warnings by default, so test output stays quiet).
        public var logLevel: Logger.Level = .warning
        /// How long the console's `GET /api/v1/events?after=` waits for an event (`herald serve`: 25 s).
        public var consoleLongPollTimeout: Duration = .seconds(25)
        /// The store's disk budget in bytes (`herald serve --max-store-mb`); `nil`: none.
        public var maximumStoreBytes: Int64? = SQLiteStore.Configuration.defaultMaximumStoreBytes
        /// A PostgreSQL database (`postgres://…`, as `herald serve --database` takes it) instead of SQLite in the
        /// temporary data directory; the kit neither creates nor drops it (docs/postgresql.md).
        public var database: String?
        /// With ``database``: how long a store operation may wait for PostgreSQL before it fails and the provider gets
        /// `503 ServiceUnavailable` (`PostgresStore.Configuration.operationTimeout`).
        public var databaseOperationTimeout: Duration = .seconds(10)

        /// The defaults.
        public init() {}
    }

    /// Provider credentials: a `.p8` key registered with the server, its ids, and the CA to trust.
    public let credentials: ProviderCredentials
    /// The server's clock; ``HeraldTestClock/advance(by:)`` jumps over expirations.
    public let clock: HeraldTestClock
    /// The temporary data directory (removed at the end).
    public let dataDirectory: URL
    /// The wiring shared with `herald serve`.
    public let server: HeraldServer
    let serviceGroup: ServiceGroup
    let devices: DeviceRunner
    let logger: Logger
    private let addresses = AddressBook()

    private init(
        credentials: ProviderCredentials,
        clock: HeraldTestClock,
        dataDirectory: URL,
        server: HeraldServer,
        logger: Logger
    ) {
        self.credentials = credentials
        self.clock = clock
        self.dataDirectory = dataDirectory
        self.server = server
        self.logger = logger
        self.devices = DeviceRunner()
        self.serviceGroup = ServiceGroup(
            configuration: .init(services: server.services.map { .init(service: $0) }, logger: logger)
        )
    }

    static func start(_ options: Options) async throws -> HeraldTestServer {
        var logger = Logger(label: "herald.testing")
        logger.logLevel = options.logLevel
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-test-\(UUID().uuidString)", isDirectory: true)
        let clock = HeraldTestClock()
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.gateway.tlsPort = options.tls ? 0 : nil
        configuration.gateway.cleartextPort = 0
        configuration.gateway.environment = options.environment
        configuration.gateway.eventLoopThreads = 1
        configuration.delivery.offlineSlotsPerApp = options.offlineSlotsPerApp
        configuration.delivery.lowPriorityBurstWindow = options.lowPriorityBurstWindow
        configuration.store.synchronous = .normal
        configuration.web?.port = 0
        configuration.web?.eventLoopThreads = 1
        configuration.console.longPollTimeout = options.consoleLongPollTimeout
        configuration.clock = clock
        configuration.store.maximumStoreBytes = options.maximumStoreBytes
        if let database = options.database {
            var store = try PostgresStore.Configuration(url: database)
            store.operationTimeout = options.databaseOperationTimeout
            configuration.database = store
        }
        let server = try await HeraldServer(configuration: configuration, logger: logger)
        do {
            let key = try PrivateSigningKey.generate(teamID: options.teamID)
            try await server.store.addSigningKey(
                SigningKeyRecord(key: key, scope: .both, topics: nil, createdAtMilliseconds: clock.nowMilliseconds())
            )
            let keyFile = directory.appendingPathComponent("AuthKey_\(key.keyID).p8")
            try key.write(p8To: keyFile)
            let credentials = ProviderCredentials(
                keyID: key.keyID,
                teamID: key.teamID,
                p8: key.p8,
                p8File: keyFile,
                caCertificateFile: server.pki?.files.caCertificate ?? configuration.tlsDirectory.appendingPathComponent("ca.pem"),
                signingKey: key
            )
            return HeraldTestServer(credentials: credentials, clock: clock, dataDirectory: directory, server: server, logger: logger)
        } catch {
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func resolveAddresses() async throws {
        let tls = await server.gateway.tlsPort
        let cleartext = await server.gateway.cleartextPort
        let web = await server.web?.port
        addresses.set(tls: tls, cleartext: cleartext, web: web)
    }

    func removeFiles() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The fault rules in force on the provider API (docs/faults.md): add one to make the next pushes fail as APNs
    /// does on a bad day, e.g. `try server.faults.add(FaultRule(json: Array(#"{"status": 503, "count": 1}"#.utf8)))`.
    public var faults: FaultTable { server.faults }

    /// Starts again without a restart, as `POST /api/v1/reset` does: what waits is discarded, every notification and
    /// trace deleted, every fault rule removed (unless `options` keeps them); devices stay connected.
    @discardableResult
    public func reset(_ options: ResetOptions = ResetOptions()) async throws -> ResetResult {
        try await server.reset(options)
    }

    /// The h2c (cleartext HTTP/2, prior knowledge) provider API, e.g. `http://127.0.0.1:51234`.
    public var cleartextURL: String { "http://127.0.0.1:\(addresses.ports.cleartext ?? 0)" }
    /// The TLS provider API (ALPN h2; trust ``ProviderCredentials/caCertificateFile``), e.g. `https://127.0.0.1:51235`;
    /// `nil` when ``Options/tls`` is off.
    public var tlsURL: String? { addresses.ports.tls.map { "https://127.0.0.1:\($0)" } }
    /// The device link, e.g. `ws://127.0.0.1:51236/device-link`.
    public var deviceLinkURL: String { "ws://127.0.0.1:\(webPort)/device-link" }
    /// The inspection API's root, e.g. `http://127.0.0.1:51236/api/v1/` (the web console's API is under it too).
    public var inspectionURL: String { "http://127.0.0.1:\(webPort)/api/v1/" }
    var webPort: Int { addresses.ports.web ?? 0 }
}
