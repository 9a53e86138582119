import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Web port access, live: the policy guards every request; device links that go silent are closed", .tier(.inProcess))
struct WebAccessLiveTests {
    @Test("A cross-origin POST is 403 and a form body 415 before any responder runs; the console's own POST reaches it")
    func crossOriginRefused() async throws {
        try await LinkServerFixture.with(inspection: true) { fixture in
            let evil = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/devices",
                method: "POST",
                headers: ["origin": "http://evil.example", "content-type": "application/json"],
                body: "{}"
            )
            #expect(evil.status == 403)
            #expect((evil.object?["error"] as? String)?.contains("evil.example") == true)
            let form = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/devices",
                method: "POST",
                headers: ["content-type": "application/x-www-form-urlencoded"],
                body: "a=b"
            )
            #expect(form.status == 415)
            // Allowed through the policy: the inspection API answers (it has no POST route there).
            let own = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/devices",
                method: "POST",
                headers: ["origin": "http://127.0.0.1:\(fixture.port)", "content-type": "application/json"],
                body: "{}"
            )
            #expect(own.status != 403 && own.status != 415)
        }
    }

    @Test("With an API token, the inspection API needs it; the token in the console URL becomes a cookie")
    func apiToken() async throws {
        var configuration = WebConfiguration()
        configuration.access = WebAccessPolicy(apiToken: "test-token-0123456789")
        try await LinkServerFixture.with(configuration: configuration, inspection: true) { fixture in
            #expect(try await InspectionHTTP.request(port: fixture.port, path: "/api/v1/devices").status == 401)
            let bearer = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/devices",
                headers: ["authorization": "Bearer test-token-0123456789"]
            )
            #expect(bearer.status == 200)
            let cookie = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/devices",
                headers: ["cookie": "herald_api_token=test-token-0123456789"]
            )
            #expect(cookie.status == 200)
        }
    }

    @Test("A silent device link is closed with 1001 at the peer timeout; a live one is pinged")
    func silentPeer() throws {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        var configuration = WebConfiguration()
        configuration.peerTimeout = .hours(1)
        try channel.pipeline.syncOperations.addHandler(DeviceLinkConnection(services: Self.services(configuration)))
        channel.pipeline.fireUserInboundEventTriggered(PeerCheck())
        let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(ping.opcode == .ping)

        let silent = EmbeddedChannel()
        defer { _ = try? silent.finish() }
        configuration.peerTimeout = .zero
        try silent.pipeline.syncOperations.addHandler(DeviceLinkConnection(services: Self.services(configuration)))
        silent.pipeline.fireUserInboundEventTriggered(PeerCheck())
        let close = try #require(try silent.readOutbound(as: WebSocketFrame.self))
        #expect(close.opcode == .connectionClose)
        var data = close.unmaskedData
        #expect(data.readWebSocketErrorCode() == .goingAway)
    }

    static func services(_ configuration: WebConfiguration) -> DeviceLinkServices {
        DeviceLinkServices(
            registry: LinkTestRegistry(clock: ManualWallClock(milliseconds: 0)),
            engine: DeliveryEngine(store: InMemoryDeliveryStore(), logger: .init(label: "test.web-access")),
            work: ServerWorkQueue(),
            clock: ManualWallClock(milliseconds: 0),
            logger: .init(label: "test.web-access"),
            configuration: configuration,
            console: ConsoleHub()
        )
    }
}
