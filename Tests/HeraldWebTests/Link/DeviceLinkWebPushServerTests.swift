import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldServer
import HeraldTestTiers
import Logging
import NIOPosix
import ServiceLifecycle
import Testing

/// `herald serve`'s wiring of web push endpoints: the push service is the provider port the gateway bound.
@Suite("Device link: web push endpoints name herald serve's provider port", .tier(.inProcess))
struct DeviceLinkWebPushServerTests {
    static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"

    @Test("the endpoint is https on the TLS port, or http on the cleartext port when there is no TLS port", arguments: [true, false])
    func endpointNamesTheProviderPort(tls: Bool) async throws {
        var logger = Logger(label: "test.web-push-endpoint")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-web-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.gateway.tlsPort = tls ? 0 : nil
        configuration.gateway.cleartextPort = 0
        configuration.gateway.eventLoopThreads = 1
        configuration.web?.port = 0
        configuration.web?.eventLoopThreads = 1
        let server = try await HeraldServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(services: server.services, logger: logger)
        let run = Task { try await group.run() }
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let result: Result<Void, any Error>
        do {
            try await server.waitUntilReady()
            let webPort = try #require(await server.web?.port)
            let credentials = try await server.store.addDevice(name: "mac")
            let client = try await DeviceLinkClient.connect(configuration: .init(host: "127.0.0.1", port: webPort), eventLoopGroup: clients)
            try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
            let token = DeviceToken.random()
            let subscription = try await client.subscribeWebPush(origin: "https://shop.example", applicationServerKey: Self.key, token: token)
            let expected =
                tls
                ? "https://127.0.0.1:\(try #require(await server.gateway.tlsPort))/push/\(token.hex)"
                : "http://127.0.0.1:\(try #require(await server.gateway.cleartextPort))/push/\(token.hex)"
            #expect(subscription.endpoint == expected)
            await client.close()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        _ = try? await run.value
        await server.shutdown()
        try? await clients.shutdownGracefully()
        try result.get()
    }
}
