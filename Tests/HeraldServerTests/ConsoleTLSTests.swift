import Foundation
import HeraldAuth
import HeraldCore
import HeraldServer
import HeraldTestTiers
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `/console/send` on a server without h2c: the console reaches its own gateway over TLS (tier 3).
@Suite("Console API: sending over TLS", .tier(.inProcess))
struct ConsoleTLSTests {
    /// Whose server certificate the gateway presents.
    enum ServerCertificate: String, CaseIterable, Sendable {
        /// The development CA's, made in the data directory.
        case development
        /// One given with `--tls-cert`, from a CA the server does not know (the console pins it).
        case given
    }

    @Test("with h2c off, /console/send goes over TLS to the gateway and gets its 200", arguments: ServerCertificate.allCases)
    func sendOverTLS(_ certificate: ServerCertificate) async throws {
        var logger = Logger(label: "test.console-tls")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-console-tls-\(UUID().uuidString)")
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.gateway.tlsPort = 0
        configuration.gateway.cleartextPort = nil
        configuration.gateway.eventLoopThreads = 1
        configuration.web?.port = 0
        configuration.web?.eventLoopThreads = 1
        configuration.store.synchronous = .normal
        if certificate == .given {
            // Another CA's certificate, named for a host the console does not connect to.
            let authority = try DevelopmentCertificateAuthority.generate(commonName: "Another CA", now: Date())
            let issued = try authority.issueServerCertificate(hosts: ["push.example.com"], now: Date())
            let files = directory.appendingPathComponent("given")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            let certificatePath = files.appendingPathComponent("server.pem")
            let keyPath = files.appendingPathComponent("server.key")
            try Data(issued.certificatePEM.utf8).write(to: certificatePath)
            try Data(issued.privateKey.pemRepresentation.utf8).write(to: keyPath)
            configuration.tls.certificatePath = certificatePath.path
            configuration.tls.privateKeyPath = keyPath.path
        }
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
            request.setValue("application/json", forHTTPHeaderField: "content-type")
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
