import Foundation
import HeraldAuth
import HeraldCore
import HeraldGateway
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// A live gateway on ephemeral ports with its own data directory, key and development PKI (tier 3).
public final class GatewayFixture: Sendable {
    public static let teamID = "TEAM123456"
    public static let keyID = "KEY1234567"
    public static let topic = "com.example.app"

    public let directory: URL
    public let store: SQLiteStore
    public let clock: ManualWallClock
    public let gateway: Gateway
    public let pki: DevelopmentPKI
    public let key: PrivateSigningKey
    public let clientGroup: MultiThreadedEventLoopGroup
    public let environment: APNSEnvironment
    /// The fault rules the gateway applies (docs/faults.md).
    public let faults: FaultTable
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(
        directory: URL,
        store: SQLiteStore,
        clock: ManualWallClock,
        gateway: Gateway,
        pki: DevelopmentPKI,
        key: PrivateSigningKey,
        environment: APNSEnvironment,
        faults: FaultTable,
        serviceGroup: ServiceGroup,
        runTask: Task<Void, any Error>
    ) {
        self.directory = directory
        self.store = store
        self.clock = clock
        self.gateway = gateway
        self.pki = pki
        self.key = key
        self.environment = environment
        self.faults = faults
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    public static func start(
        keyScope: SigningKeyScope = .both,
        configure: (inout GatewayConfiguration) -> Void = { _ in },
        store configureStore: (inout SQLiteStore.Configuration) -> Void = { _ in },
        services configureServices: (inout ProviderServices) -> Void = { _ in }
    ) async throws -> GatewayFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let clock = ManualWallClock()
        var storeConfiguration = SQLiteStore.Configuration(dataDirectory: directory.path)
        configureStore(&storeConfiguration)
        let store = try SQLiteStore(configuration: storeConfiguration, clock: clock)
        let pki = try DevelopmentPKI.create(in: directory.appendingPathComponent("tls"), now: Date())
        let key = try PrivateSigningKey.generate(teamID: teamID, keyID: keyID)
        try await store.addSigningKey(
            SigningKeyRecord(
                keyID: keyID,
                teamID: teamID,
                scope: keyScope,
                topics: nil,
                publicKeyPEM: key.privateKey.publicKey.pemRepresentation,
                createdAtMilliseconds: clock.nowMilliseconds()
            )
        )
        var configuration = GatewayConfiguration()
        configuration.tlsPort = 0
        configuration.cleartextPort = 0
        configuration.eventLoopThreads = 1
        configuration.tls = .init(
            certificatePath: pki.files.serverCertificate.path,
            privateKeyPath: pki.files.serverPrivateKey.path,
            clientCAPaths: [pki.files.caCertificate.path]
        )
        configure(&configuration)
        var logger = Logger(label: "test.gateway")
        logger.logLevel = .warning
        let faults = FaultTable()
        var services = ProviderServices(store: store, clock: clock, faults: faults)
        configureServices(&services)
        let gateway = Gateway(configuration: configuration, services: services, logger: logger)
        let serviceGroup = ServiceGroup(services: [gateway], logger: logger)
        let runTask = Task { try await serviceGroup.run() }
        try await gateway.waitUntilReady()
        return GatewayFixture(
            directory: directory,
            store: store,
            clock: clock,
            gateway: gateway,
            pki: pki,
            key: key,
            environment: configuration.environment,
            faults: faults,
            serviceGroup: serviceGroup,
            runTask: runTask
        )
    }

    /// Gracefully shuts the gateway down and removes its files.
    public func stop() async {
        await stopGateway()
        await store.shutdown()
        try? await clientGroup.shutdownGracefully()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Gracefully shuts the gateway down (GOAWAY, drain) and waits for it, leaving the store and client loop running.
    public func stopGateway() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = try? await runTask.value
    }

    /// Generates a signing key and registers it in the store, as `herald keys add` does while the gateway runs.
    public func addKey(
        teamID: String = GatewayFixture.teamID,
        topics: [String]? = nil,
        scope: SigningKeyScope = .both
    ) async throws -> PrivateSigningKey {
        let key = try PrivateSigningKey.generate(teamID: teamID)
        try await store.addSigningKey(
            SigningKeyRecord(
                keyID: key.keyID,
                teamID: teamID,
                scope: scope,
                topics: topics,
                publicKeyPEM: key.privateKey.publicKey.pemRepresentation,
                createdAtMilliseconds: clock.nowMilliseconds()
            )
        )
        return key
    }

    /// A provider client certificate from the fixture's CA, valid now.
    public func issueCertificate(topics: [String] = [GatewayFixture.topic], environments: EnvironmentScope = .both) throws -> IssuedCertificate {
        try pki.authority.issueProviderCertificate(topics: topics, environments: environments, teamID: Self.teamID, now: Date())
    }

    public func registerToken(topic: String = GatewayFixture.topic, environment: APNSEnvironment? = nil) async throws -> DeviceToken {
        try await store.registerToken(bundleID: topic, environment: environment ?? self.environment, deviceID: nil)
    }

    /// A provider token signed now (or at the given time) with the fixture's key.
    public func jwt(issuedAt: Int64? = nil, key: PrivateSigningKey? = nil) -> String {
        (key ?? self.key).makeToken(issuedAt: issuedAt ?? clock.nowSeconds())
    }

    public func cleartextClient() async throws -> HTTP2TestClient {
        try await HTTP2TestClient.connect(port: try await port(tls: false), group: clientGroup)
    }

    /// A TLS client, with a client certificate (certificate auth) or without (token auth); `applicationProtocols`
    /// empty offers no ALPN at all.
    public func tlsClient(certificate: IssuedCertificate? = nil, applicationProtocols: [String] = ["h2"]) async throws -> HTTP2TestClient {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .file(pki.files.caCertificate.path)
        configuration.applicationProtocols = applicationProtocols
        if let certificate {
            let pem = try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem)
            let key = try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem)
            configuration.certificateChain = [.certificate(pem)]
            configuration.privateKey = .privateKey(key)
        }
        let context = try NIOSSLContext(configuration: configuration)
        return try await HTTP2TestClient.connect(port: try await port(tls: true), tls: context, group: clientGroup)
    }

    public func port(tls: Bool) async throws -> Int {
        let port = tls ? await gateway.tlsPort : await gateway.cleartextPort
        guard let port else { throw GatewayError.notRunning }
        return port
    }

    /// Headers of a valid alert push with token auth.
    public func alertHeaders(jwt: String? = nil, topic: String = GatewayFixture.topic) -> [(String, String)] {
        [("authorization", "bearer \(jwt ?? self.jwt())"), ("apns-topic", topic), ("apns-push-type", "alert")]
    }

    public static let alertBody = Array(#"{"aps":{"alert":{"title":"Hello","body":"World"}}}"#.utf8)
}

/// Runs `body` with a live gateway and stops it afterwards, whether `body` throws or not.
public func withGateway<T>(_ body: (GatewayFixture) async throws -> T) async throws -> T {
    let fixture = try await GatewayFixture.start()
    do {
        let value = try await body(fixture)
        await fixture.stop()
        return value
    } catch {
        await fixture.stop()
        throw error
    }
}

/// A canonical UUID, the form Herald generates for `apns-id`.
public func isUUID(_ text: String?) -> Bool {
    guard let text else { return false }
    return UUID(uuidString: text) != nil
}

/// A well-formed token no gateway has registered.
public let unknownDeviceToken = String(repeating: "ab", count: 32)

extension GatewayFixture {
    /// A device's token of each kind for the fixture's app.
    public struct TokensOfEachKind: Sendable {
        public var device: DeviceToken
        public var activity: DeviceToken
        public var pushToStart: DeviceToken
    }

    /// Adds a device with an app token, a Live Activity token and a push-to-start token for ``topic``.
    public func registerTokensOfEachKind() async throws -> TokensOfEachKind {
        let device = try await store.addDevice(name: "phone").device.id
        let app = try await store.registerAppToken(deviceID: device, bundleID: GatewayFixture.topic, environment: environment)
        func activityToken(_ kind: TokenKind) async throws -> DeviceToken {
            let request = ActivityTokenRequest(
                deviceID: device,
                bundleID: GatewayFixture.topic,
                environment: environment,
                kind: kind,
                token: .random(),
                activityType: "DeliveryAttributes"
            )
            return try await store.registerActivityToken(request, limit: 8).token.token
        }
        return TokensOfEachKind(
            device: app.token.token,
            activity: try await activityToken(.activity),
            pushToStart: try await activityToken(.pushToStart)
        )
    }
}
