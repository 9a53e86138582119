import Foundation
import HeraldAuth
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Certificate authentication over the TLS port (spec §A.8), with client certificates from the fixture's CA.
@Suite("Certificate authentication over TLS", .serialized, .tier(.inProcess))
struct CertificateAuthenticationTests {
    private static let plainAlert = [("apns-push-type", "alert")]

    @Test("a certificate for the topic is accepted without an authorization header")
    func accepted() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.tlsClient(certificate: try fixture.issueCertificate())
        let response = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: Self.plainAlert + [("apns-topic", GatewayFixture.topic)],
            body: GatewayFixture.alertBody
        )
        #expect(response.status == 200)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).count == 1)
        await client.close()
        await fixture.stop()
    }

    @Test("a single-topic certificate supplies the topic when apns-topic is absent")
    func defaultTopic() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.tlsClient(certificate: try fixture.issueCertificate())
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: Self.plainAlert, body: GatewayFixture.alertBody)
        #expect(response.status == 200)
        let stored = try await fixture.store.listNotifications(token: token, limit: 10)
        #expect(stored.map(\.notification.topic) == [GatewayFixture.topic])
        await client.close()
        await fixture.stop()
    }

    @Test("a multi-topic certificate and no apns-topic is MissingTopic")
    func multiTopicWithoutTopic() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let certificate = try fixture.issueCertificate(topics: [GatewayFixture.topic, "com.example.second"])
        let client = try await fixture.tlsClient(certificate: certificate)
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: Self.plainAlert, body: GatewayFixture.alertBody)
        #expect(response.status == 400)
        #expect(response.reason == "MissingTopic")
        await client.close()
        await fixture.stop()
    }

    @Test("a topic the certificate lacks is TopicDisallowed")
    func topicDisallowed() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken(topic: "com.example.other")
        let client = try await fixture.tlsClient(certificate: try fixture.issueCertificate())
        let response = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: Self.plainAlert + [("apns-topic", "com.example.other")],
            body: GatewayFixture.alertBody
        )
        #expect(response.status == 400)
        #expect(response.reason == "TopicDisallowed")
        await client.close()
        await fixture.stop()
    }

    @Test("a production-only certificate on the sandbox gateway is BadCertificateEnvironment")
    func wrongEnvironment() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.tlsClient(certificate: try fixture.issueCertificate(environments: .production))
        let response = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: Self.plainAlert + [("apns-topic", GatewayFixture.topic)],
            body: GatewayFixture.alertBody
        )
        #expect(response.status == 403)
        #expect(response.reason == "BadCertificateEnvironment")
        await client.close()
        await fixture.stop()
    }
}
