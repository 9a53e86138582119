import Foundation
import HeraldAuth
import HeraldCore
import HeraldDeviceLink
import HeraldGateway
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import NIOPosix
import Prometheus
import ServiceLifecycle
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Metrics: GET /metrics on the web port", .tier(.inProcess))
struct MetricsEndpointTests {
    @Test("GET /metrics answers the registry in the text format 0.0.4; other methods 405; other paths 404")
    func endpointRouting() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "example_total", help: "An example.").increment(by: Int64(3))
        var routes = WebRoutes()
        MetricsEndpoint(registry: registry).addRoutes(to: &routes)
        let webMetrics = PrometheusCollectorRegistry()
        let router = WebRouter(routes: routes, configuration: WebConfiguration(), metrics: webMetrics, logger: .init(label: "test"))

        let response = await router.respond(to: WebRequest(method: "GET", target: "/metrics"))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = PrometheusText(String(decoding: response.body, as: UTF8.self))
        #expect(text["example_total"] == 3)
        #expect(text.types["example_total"] == "counter")

        let post = await router.respond(to: WebRequest(method: "POST", target: "/metrics"))
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        #expect(await router.respond(to: WebRequest(method: "GET", target: "/api/v1/devices")).status == 404)
        #expect(await router.respond(to: WebRequest(method: "GET", target: "/metricsx")).status == 404)

        // The route label is the matched pattern; a 405 and a 404 are NotFound (docs/metrics.md).
        var emitted: [UInt8] = []
        webMetrics.emit(into: &emitted)
        let requests = PrometheusText(String(decoding: emitted, as: UTF8.self))
        #expect(requests[#"herald_web_requests_total{route="/metrics",status="200"}"#] == 1)
        #expect(requests[#"herald_web_requests_total{route="NotFound",status="405"}"#] == 1)
        #expect(requests[#"herald_web_requests_total{route="NotFound",status="404"}"#] == 2)
    }

    @Test("an accepted push, a rejected one, a delivery 40 ms after acceptance: counters, gauges and histograms")
    func systemCounts() async throws {
        try await MetricsSystem.with { system in
            let client = try await system.connectDevice()
            let token = try await client.register(bundleID: MetricsSystem.topic, environment: .sandbox).token

            let accepted = try await system.push(to: token.hex)
            #expect(accepted == 200)
            let received = try await client.nextMessage()
            guard case .notification(let notification) = received else {
                Issue.record("expected a notification, got \(received)")
                return
            }
            system.clock.advance(seconds: 0.04)
            client.acknowledge(notification.apnsID)
            try await client.ping()
            await system.engine.waitUntilIdle()

            let rejected = try await system.push(to: String(repeating: "ab", count: 32))
            #expect(rejected == 400)

            let response = try await system.get("/metrics")
            #expect(response.status == 200)
            #expect(response.contentType == MetricsEndpoint.contentType)
            let text = PrometheusText(response.body)

            #expect(text["herald_notifications_accepted_total"] == 1)
            #expect(text[#"herald_notifications_rejected_total{reason="BadDeviceToken",status="400"}"#] == 1)
            // Every known reason is a series from the start, at zero until it happens.
            #expect(text[#"herald_notifications_rejected_total{reason="Unregistered",status="410"}"#] == 0)
            #expect(text[#"herald_notifications_rejected_total{reason="TooManyRequests",status="429"}"#] == 0)
            #expect(text["herald_notifications_sent_total"] == 1)
            #expect(text["herald_notifications_delivered_total"] == 1)
            #expect(text["herald_notifications_stored_total"] == 0)
            #expect(text["herald_notifications_expired_total"] == 0)
            #expect(text["herald_notifications_replaced_total"] == 0)
            #expect(text["herald_notifications_discarded_total"] == 0)
            #expect(text["herald_notifications_pending"] == 0)
            #expect(text["herald_notifications_outstanding"] == 0)
            #expect(text["herald_devices_connected"] == 1)
            #expect(text["herald_provider_connections"] != nil)

            #expect(text["herald_accept_latency_seconds_count"] == 1)
            #expect(text[#"herald_accept_latency_seconds_bucket{le="+Inf"}"#] == 1)
            #expect(text.types["herald_accept_latency_seconds"] == "histogram")
            #expect(text["herald_delivery_latency_seconds_count"] == 1)
            #expect(text["herald_delivery_latency_seconds_sum"] == 0.04)
            #expect(text[#"herald_delivery_latency_seconds_bucket{le="0.025"}"#] == 0)
            #expect(text[#"herald_delivery_latency_seconds_bucket{le="0.05"}"#] == 1)
            #expect(text.types["herald_notifications_rejected_total"] == "counter")
            #expect(text.types["herald_devices_connected"] == "gauge")
            for name in Self.documentedNames {
                #expect(text.types[name] != nil, "\(name) is not exposed")
                #expect(text.help[name] != nil, "\(name) has no HELP")
            }
        }
    }

    @Test("an offline device: the notification is stored and pending until the device connects")
    func offlineCounts() async throws {
        try await MetricsSystem.with { system in
            let setup = try await system.connectDevice()
            let token = try await setup.register(bundleID: MetricsSystem.topic, environment: .sandbox).token
            await setup.close()
            await system.engine.waitUntilIdle()

            #expect(try await system.push(to: token.hex) == 200)
            await system.engine.waitUntilIdle()
            let text = PrometheusText(try await system.get("/metrics").body)
            #expect(text["herald_notifications_stored_total"] == 1)
            #expect(text["herald_notifications_pending"] == 1)
            #expect(text["herald_notifications_sent_total"] == 0)
            #expect(text["herald_devices_connected"] == 0)
            #expect(text["herald_delivery_latency_seconds_count"] == 0)
        }
    }

    /// Every metric docs/metrics.md lists.
    static let documentedNames = [
        "herald_notifications_accepted_total", "herald_notifications_rejected_total", "herald_accept_latency_seconds",
        "herald_provider_connections", "herald_notifications_sent_total", "herald_notifications_delivered_total",
        "herald_notifications_stored_total", "herald_notifications_expired_total", "herald_notifications_replaced_total",
        "herald_notifications_discarded_total", "herald_notifications_pending", "herald_notifications_outstanding",
        "herald_devices_connected", "herald_delivery_latency_seconds",
    ]
}

/// `herald serve` in process (tier 3): a real ``SQLiteStore``, the engine, the web port with ``MetricsEndpoint``,
/// and the gateway's cleartext port, all on one registry and one manual clock.
private struct MetricsSystem {
    static let topic = "com.example.app"
    static let teamID = "METRICS123"
    static let keyID = "METRICSKEY"

    let store: SQLiteStore
    let clock: ManualWallClock
    let engine: DeliveryEngine
    let link: LinkClients
    let webPort: Int
    let providerPort: Int
    let jwt: String

    static func with(_ body: (MetricsSystem) async throws -> Void) async throws {
        let clock = ManualWallClock(milliseconds: 1_700_000_000_000)
        var logger = Logger(label: "test.metrics")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory), clock: clock, logger: logger)
        let key = try PrivateSigningKey.generate(teamID: teamID, keyID: keyID)
        try await store.addSigningKey(
            SigningKeyRecord(
                keyID: keyID,
                teamID: teamID,
                scope: .both,
                topics: nil,
                publicKeyPEM: key.privateKey.publicKey.pemRepresentation,
                createdAtMilliseconds: clock.nowMilliseconds()
            )
        )

        let registry = PrometheusCollectorRegistry()
        var engineConfiguration = DeliveryEngine.Configuration()
        engineConfiguration.policy.lowPriorityBurstWindow = .zero
        let engine = DeliveryEngine(
            store: store,
            configuration: engineConfiguration,
            clock: clock,
            metrics: DeliveryMetrics(registry: registry),
            logger: logger
        )
        var routes = WebRoutes()
        MetricsEndpoint(registry: registry).addRoutes(to: &routes)
        var linkConfiguration = WebConfiguration()
        linkConfiguration.port = 0
        linkConfiguration.eventLoopThreads = 1
        let server = WebServer(
            configuration: linkConfiguration,
            registry: store,
            engine: engine,
            routes: routes,
            metrics: registry,
            clock: clock,
            logger: logger
        )
        var gatewayConfiguration = GatewayConfiguration()
        gatewayConfiguration.tlsPort = nil
        gatewayConfiguration.cleartextPort = 0
        gatewayConfiguration.eventLoopThreads = 1
        let gateway = Gateway(
            configuration: gatewayConfiguration,
            services: ProviderServices(store: store, clock: clock, onAccepted: { engine.accepted($0, sequence: $1, deviceFault: $2) }),
            metrics: GatewayMetrics(registry: registry),
            logger: logger
        )
        try await engine.restore()
        let group = ServiceGroup(services: [engine, server, gateway], logger: logger)
        let run = Task { try await group.run() }
        let link = LinkClients()
        do {
            try await server.waitUntilReady()
            try await gateway.waitUntilReady()
            let system = MetricsSystem(
                store: store,
                clock: clock,
                engine: engine,
                link: link,
                webPort: try #require(await server.port),
                providerPort: try #require(await gateway.cleartextPort),
                jwt: key.makeToken(issuedAt: clock.nowSeconds())
            )
            try await body(system)
        } catch {
            await stop(group, run, link, store)
            throw error
        }
        await stop(group, run, link, store)
    }

    private static func stop(_ group: ServiceGroup, _ run: Task<Void, any Error>, _ link: LinkClients, _ store: SQLiteStore) async {
        await group.triggerGracefulShutdown()
        _ = try? await run.value
        await link.stop()
        await store.shutdown()
    }

    /// A new device, connected and authenticated on the web port.
    func connectDevice() async throws -> DeviceLinkClient {
        let credentials = try await store.addDevice(name: "metrics phone")
        let client = try await DeviceLinkClient.connect(
            configuration: .init(host: "127.0.0.1", port: webPort),
            eventLoopGroup: link.group
        )
        try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
        return client
    }

    /// A push over HTTP/1.1 on the cleartext provider port; its status.
    func push(to token: String) async throws -> Int {
        let url = try #require(URL(string: "http://127.0.0.1:\(providerPort)/3/device/\(token)"))
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("bearer \(jwt)", forHTTPHeaderField: "authorization")
        request.setValue(Self.topic, forHTTPHeaderField: "apns-topic")
        request.setValue("alert", forHTTPHeaderField: "apns-push-type")
        request.httpBody = Data(#"{"aps":{"alert":"Hello"}}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return try #require(response as? HTTPURLResponse).statusCode
    }

    /// A `GET` on the web port: status, content type and body.
    func get(_ path: String) async throws -> (status: Int, contentType: String?, body: String) {
        let response = try await InspectionHTTP.request(port: webPort, path: path)
        return (response.status, response.contentType, String(decoding: response.body, as: UTF8.self))
    }
}

/// The device clients' event loop.
private final class LinkClients: Sendable {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    func stop() async {
        try? await group.shutdownGracefully()
    }
}
