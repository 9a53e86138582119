import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The provider API over HTTP/1.1 on the cleartext port, told apart from h2c by the missing preface.
@Suite("Provider API over HTTP/1.1", .serialized, .tier(.inProcess))
struct HTTP1ProviderTests {
    @Test("a valid push is answered HTTP/1.1 200 with apns-id and stored")
    func accepted() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let id = "8e2f4a10-3b1c-4d5e-9f60-718293a4b5c6"
        let request = HTTP1TestExchange.request(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders() + [("apns-id", id)],
            body: GatewayFixture.alertBody,
            close: true
        )
        let responses = try await HTTP1TestExchange.exchange(request, port: try await fixture.port(tls: false), group: fixture.clientGroup)
        #expect(responses.count == 1)
        let response = try #require(responses.first)
        #expect(response.statusLine.hasPrefix("HTTP/1.1 200"))
        #expect(response.header("apns-id") == id)
        #expect(response.body.isEmpty)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).map(\.notification.id.text) == [id])
        await fixture.stop()
    }

    @Test("an error is answered with its status and a JSON reason")
    func rejected() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let request = HTTP1TestExchange.request(
            path: "/3/device/\(token.hex)",
            headers: [("apns-topic", GatewayFixture.topic)],
            body: GatewayFixture.alertBody,
            close: true
        )
        let responses = try await HTTP1TestExchange.exchange(request, port: try await fixture.port(tls: false), group: fixture.clientGroup)
        let response = try #require(responses.first)
        #expect(response.statusLine.hasPrefix("HTTP/1.1 403"))
        #expect(response.header("content-type") == "application/json")
        #expect(response.reason == "MissingProviderToken")
        #expect(response.header("apns-id") != nil)
        await fixture.stop()
    }

    @Test("pipelined requests are answered in order on one connection")
    func pipelined() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let path = "/3/device/\(token.hex)"
        let first = "0a1b2c3d-0000-4000-8000-000000000001"
        let second = "0a1b2c3d-0000-4000-8000-000000000002"
        let bytes =
            HTTP1TestExchange.request(
                path: path,
                headers: fixture.alertHeaders() + [("apns-id", first)],
                body: GatewayFixture.alertBody,
                close: false
            )
            + HTTP1TestExchange.request(path: path, headers: [("apns-topic", GatewayFixture.topic), ("apns-id", second)], body: [], close: true)
        let responses = try await HTTP1TestExchange.exchange(bytes, port: try await fixture.port(tls: false), group: fixture.clientGroup)
        #expect(responses.map(\.status) == [200, 403])
        #expect(responses.map { $0.header("apns-id") } == [first, second])
        #expect(responses.last?.reason == "MissingProviderToken")
        await fixture.stop()
    }
}
