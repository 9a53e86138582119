import Foundation
import HeraldCore
import HeraldServer
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `/console/send` on a server without h2c: the console reaches its own gateway over TLS (tier 3).
@Suite("Console API: sending over TLS")
struct ConsoleTLSTests {
    @Test("with h2c off, /console/send goes over TLS trusting the development CA and gets the gateway's 200")
    func sendOverTLS() async throws {
        var logger = Logger(label: "test.console-tls")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-console-tls-\(UUID().uuidString)")
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.tlsPort = 0
        configuration.cleartextPort = nil
        configuration.linkPort = 0
        configuration.eventLoopThreads = 1
        configuration.webEventLoopThreads = 1
        configuration.synchronous = .normal
        let server = try await HeraldServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(services: server.services, logger: logger)
        let run = Task { try await group.run() }
        let result: Result<Void, any Error>
        do {
            try await server.waitUntilReady()
            let token = try await server.store.registerToken(bundleID: "com.example.tls", environment: .sandbox, deviceID: nil)
            let port = try #require(await server.web?.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/v1/console/send"))
            var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 15)
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"token":"\#(token.hex)","payload":"{\"aps\":{\"alert\":\"over TLS\"}}"}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(body["status"] as? Int == 200, "\(body)")
            let apnsID = try #require(body["apnsID"] as? String)
            // Accepted by the gateway: the store has it, stored for the device that is not connected.
            let stored = try await server.store.notification(try #require(NotificationID(apnsID)))
            #expect(stored?.notification.token == token)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        _ = try? await run.value
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
        try result.get()
    }
}
