import Foundation
import HeraldAuth
import HeraldCore
import HeraldProviderClient
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOHTTP2
import NIOPosix
import Synchronization
import Testing

/// `APNSProviderClient` against a live in-process gateway (tier 3): auth, concurrency, answers, reconnection.
@Suite("APNSProviderClient against the gateway", .serialized, .tier(.inProcess))
struct APNSProviderClientTests {
    /// A client for the fixture's gateway: TLS trusting its CA (or h2c), its key and its clock.
    static func client(
        _ fixture: GatewayFixture,
        tls: Bool = true,
        authentication: APNSProviderClient.Authentication? = nil,
        responseTimeout: Duration = .seconds(10)
    ) async throws -> APNSProviderClient {
        let endpoint = APNSProviderClient.Endpoint(host: tls ? "localhost" : "127.0.0.1", port: try await fixture.port(tls: tls), usesTLS: tls)
        var configuration = APNSProviderClient.Configuration(endpoint: endpoint, authentication: authentication ?? .token(fixture.key))
        configuration.trustRootFiles = [fixture.pki.files.caCertificate.path]
        configuration.trustsSystemRoots = false
        configuration.responseTimeout = responseTimeout
        return try APNSProviderClient(configuration: configuration, eventLoopGroup: fixture.clientGroup, clock: fixture.clock)
    }

    static func alert(_ token: DeviceToken, apnsID: String? = nil) -> APNSRequest {
        APNSRequest(deviceToken: token.hex, payload: GatewayFixture.alertBody, topic: GatewayFixture.topic, pushType: .alert, apnsID: apnsID)
    }

    /// Waits (at most 5 s) until the gateway has this many connections.
    static func waitForConnections(_ count: Int, _ fixture: GatewayFixture) async throws {
        try await eventually("the gateway holds \(count) connections", within: .seconds(5)) { await fixture.gateway.connectionCount == count }
    }

    @Test("token auth over TLS and h2c: 200, the apns-id echoed, apns-unique-id in the sandbox", arguments: [true, false])
    func accepted(tls: Bool) async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture, tls: tls)
            let apnsID = "123E4567-E89B-12D3-A456-426614174000"
            let response = try await client.send(Self.alert(token, apnsID: apnsID))
            #expect(response.status == 200 && response.isAccepted && response.reason == nil, "\(response)")
            #expect(response.apnsID == apnsID)
            #expect(isUUID(response.apnsUniqueID))
            #expect(response.latency > .zero && response.latency < .seconds(10))
            let generated = try await client.send(Self.alert(token))
            #expect(isUUID(generated.apnsID) && generated.apnsID != apnsID)
            await client.shutdown()
        }
    }

    @Test("concurrent sends share one connection, beyond the stream limit too (the rest wait their turn)", arguments: [1000, 3])
    func concurrentSends(maximumStreams: Int) async throws {
        let fixture = try await GatewayFixture.start { $0.maximumConcurrentStreams = maximumStreams }
        do {
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture)
            try await client.connect()
            // A token connection starts at one stream (spec §A.1).
            #expect(client.concurrentStreamLimit == 1)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<300 { group.addTask { try await client.send(Self.alert(token)).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 300 && statuses.allSatisfy { $0 == 200 })
            #expect(client.concurrentStreamLimit == maximumStreams)
            #expect(await fixture.gateway.connectionCount == 1)
            #expect(try await fixture.store.listNotifications(token: token, limit: 1000).count == 300)
            await client.shutdown()
            try await Self.waitForConnections(0, fixture)
            await #expect(throws: APNSProviderClientError.shutDown) { try await client.send(Self.alert(token)) }
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test("error answers carry their reason: BadDeviceToken, Unregistered with its timestamp, MissingProviderToken")
    func errorAnswers() async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture)
            let unknown = try #require(DeviceToken(hex: unknownDeviceToken))
            let bad = try await client.send(Self.alert(unknown))
            #expect(bad.status == 400 && bad.reason == .badDeviceToken && isUUID(bad.apnsID), "\(bad)")

            fixture.clock.advance(seconds: 5)
            let at = fixture.clock.nowMilliseconds()
            _ = try await fixture.store.unregister(token, atMilliseconds: at)
            let gone = try await client.send(Self.alert(token))
            #expect(gone.status == 410 && gone.reason == .unregistered && gone.timestamp == at, "\(gone)")
            await client.shutdown()

            let anonymous = try await Self.client(fixture, tls: false, authentication: APNSProviderClient.Authentication.none)
            let missing = try await anonymous.send(Self.alert(unknown))
            #expect(missing.status == 403 && missing.reason == .missingProviderToken, "\(missing)")
            await anonymous.shutdown()
        }
    }

    @Test("certificate authentication: the client certificate and no token")
    func certificateAuthentication() async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let issued = try fixture.issueCertificate()
            let certificate = APNSProviderClient.ClientCertificate(certificateChainPEM: issued.certificatePEM, privateKeyPEM: issued.privateKeyPEM)
            let client = try await Self.client(fixture, authentication: .certificate(certificate))
            try await client.connect()
            // A certificate connection starts at the full stream limit.
            #expect(client.concurrentStreamLimit == 1000)
            let response = try await client.send(Self.alert(token))
            #expect(response.status == 200, "\(response)")
            await client.shutdown()
        }
    }

    @Test("the provider token is signed again before the gateway would call it expired, and not before 20 minutes")
    func tokenRefresh() async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture)
            #expect(try await client.send(Self.alert(token)).status == 200)
            // Within 20 minutes the same token is reused: a new one would be TooManyProviderTokenUpdates.
            fixture.clock.advance(seconds: 10 * 60)
            #expect(try await client.send(Self.alert(token)).status == 200)
            // At 61 minutes the first token would be ExpiredProviderToken; the client signed a new one at 50.
            fixture.clock.advance(seconds: 51 * 60)
            let response = try await client.send(Self.alert(token))
            #expect(response.status == 200, "\(response)")
            await client.shutdown()
        }
    }

    @Test("after the server closes the connection (idle timeout), the next send opens a new one")
    func reconnects() async throws {
        let fixture = try await GatewayFixture.start { $0.idleTimeout = .milliseconds(300) }
        do {
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture)
            #expect(try await client.send(Self.alert(token)).status == 200)
            try await Self.waitForConnections(1, fixture)
            try await Self.waitForConnections(0, fixture)
            #expect(try await client.send(Self.alert(token)).status == 200)
            await client.shutdown()
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    @Test("a pinned server certificate is the whole check: the gateway's own is accepted with no trust root, another refused")
    func pinnedCertificate() async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let other = try DevelopmentCertificateAuthority.generate(commonName: "Another CA", now: Date())
                .issueServerCertificate(hosts: ["127.0.0.1"], now: Date())
            let otherFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pinned-\(UUID().uuidString).pem")
            try Data(other.certificatePEM.utf8).write(to: otherFile)
            defer { try? FileManager.default.removeItem(at: otherFile) }
            for (pinned, accepted) in [(fixture.pki.files.serverCertificate.path, true), (otherFile.path, false)] {
                let endpoint = APNSProviderClient.Endpoint(host: "127.0.0.1", port: try await fixture.port(tls: true), usesTLS: true)
                var configuration = APNSProviderClient.Configuration(endpoint: endpoint, authentication: .token(fixture.key))
                configuration.trustsSystemRoots = false
                configuration.pinnedServerCertificateFile = pinned
                let client = try APNSProviderClient(configuration: configuration, eventLoopGroup: fixture.clientGroup, clock: fixture.clock)
                if accepted {
                    #expect(try await client.send(Self.alert(token)).status == 200)
                } else {
                    await #expect(throws: APNSProviderClientError.connectFailed) { try await client.send(Self.alert(token)) }
                }
                await client.shutdown()
            }
        }
    }

    @Test("when the gateway shuts down (GOAWAY), the next send tries a new connection and says it could not connect")
    func gatewayGone() async throws {
        let fixture = try await GatewayFixture.start()
        do {
            let token = try await fixture.registerToken()
            let client = try await Self.client(fixture, tls: false)
            #expect(try await client.send(Self.alert(token)).status == 200)
            await fixture.stopGateway()
            await #expect(throws: APNSProviderClientError.connectFailed) { try await client.send(Self.alert(token)) }
            await client.shutdown()
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}

/// The client's deadlines and cancellation, against servers that misbehave on purpose.
@Suite("APNSProviderClient deadlines", .serialized, .tier(.inProcess))
struct APNSProviderClientDeadlineTests {
    /// A listener that accepts connections and never speaks, or speaks HTTP/2 and never answers a request.
    static func silentServer(http2: Bool, group: any EventLoopGroup, requests: RequestCount = RequestCount()) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if http2 {
                        try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server))
                        try channel.pipeline.syncOperations.addHandler(FrameSink(requests: requests))
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    static func client(port: Int, connectTimeout: Duration, responseTimeout: Duration, group: any EventLoopGroup) throws -> APNSProviderClient {
        var configuration = APNSProviderClient.Configuration(
            endpoint: .init(host: "127.0.0.1", port: port, usesTLS: false),
            authentication: .none
        )
        configuration.connectTimeout = connectTimeout
        configuration.responseTimeout = responseTimeout
        return try APNSProviderClient(configuration: configuration, eventLoopGroup: group)
    }

    static let request = APNSRequest(deviceToken: unknownDeviceToken, payload: GatewayFixture.alertBody, topic: "com.example.app")

    @Test("a server that never sends its SETTINGS: connectTimeout at the deadline")
    func connectTimeout() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await Self.silentServer(http2: false, group: group)
        // The other deadline is far away, so the error alone shows which one ended the send; the bound below only
        // shows that the send did not wait for it (generous: the machine may be busy).
        let client = try Self.client(
            port: server.localAddress!.port!,
            connectTimeout: .milliseconds(200),
            responseTimeout: .seconds(120),
            group: group
        )
        let started = ContinuousClock.now
        await #expect(throws: APNSProviderClientError.connectTimeout) { try await client.send(Self.request) }
        #expect(ContinuousClock.now - started < .seconds(60))
        await client.shutdown()
        try await server.close()
        try await group.shutdownGracefully()
    }

    @Test("a server that never answers: responseTimeout at the deadline; a cancelled send ends at once")
    func responseTimeoutAndCancellation() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let requests = RequestCount()
        let server = try await Self.silentServer(http2: true, group: group, requests: requests)
        let port = server.localAddress!.port!
        let client = try Self.client(port: port, connectTimeout: .seconds(120), responseTimeout: .milliseconds(300), group: group)
        let started = ContinuousClock.now
        await #expect(throws: APNSProviderClientError.responseTimeout) { try await client.send(Self.request) }
        #expect(ContinuousClock.now - started < .seconds(60))

        let patient = try Self.client(port: port, connectTimeout: .seconds(120), responseTimeout: .seconds(120), group: group)
        try await patient.connect()
        let before = requests.value
        let task = Task { try await patient.send(Self.request) }
        try await eventually("the patient send's request reaches the server") { requests.value > before }
        let cancelledAt = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - cancelledAt < .seconds(60))

        await client.shutdown()
        await patient.shutdown()
        try await server.close()
        try await group.shutdownGracefully()
    }

    @Test("nothing listening: connectFailed with the reason")
    func nothingListening() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await Self.silentServer(http2: false, group: group)
        let port = server.localAddress!.port!
        try await server.close()
        let client = try Self.client(port: port, connectTimeout: .seconds(5), responseTimeout: .seconds(5), group: group)
        do {
            _ = try await client.send(Self.request)
            Issue.record("a send without a server succeeded")
        } catch let error as APNSProviderClientError {
            #expect(error == .connectFailed)
            #expect(error.description.contains("127.0.0.1:\(port)"), "\(error)")
        }
        await client.shutdown()
        try await group.shutdownGracefully()
    }
}

/// The requests (HEADERS frames) a silent server was sent, on all its connections.
final class RequestCount: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func add() { count.add(1, ordering: .releasing) }
}

/// Reads HTTP/2 frames, counts the requests and answers nothing.
private final class FrameSink: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame

    private let requests: RequestCount

    init(requests: RequestCount) {
        self.requests = requests
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .headers = unwrapInboundIn(data).payload { requests.add() }
    }
}
