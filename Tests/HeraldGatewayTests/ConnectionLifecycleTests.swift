import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOPosix
import Testing

/// How HTTP/2 connections end: GOAWAY with a JSON reason on graceful shutdown and when idle (spec §A.1, §A.5).
@Suite("HTTP/2 connection lifecycle", .serialized, .tier(.inProcess))
struct ConnectionLifecycleTests {
    /// Longer than any deadline below, so that a connection closed only by the shutdown's force-close fails the test.
    private static let longGracePeriod = TimeAmount.seconds(60)

    @Test("graceful shutdown sends GOAWAY Shutdown and closes an idle connection")
    func shutdownGoAway() async throws {
        let fixture = try await GatewayFixture.start { $0.shutdownGracePeriod = Self.longGracePeriod }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        #expect(try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody).status == 200)

        async let stopped: Void = fixture.stopGateway()
        let goAway = try await client.firstGoAway.get(within: .seconds(5))
        #expect(goAway == #"{"reason":"Shutdown"}"#)
        try await client.closed.get(within: .seconds(5))
        await stopped
        #expect(client.receivedGoAways.count == 1)
        await fixture.stop()
    }

    /// A request whose HEADERS the server read before shutdown began, finished after the GOAWAY.
    struct InFlightCase: Sendable, CustomTestStringConvertible {
        var name: String
        var body: [UInt8]
        var status: Int
        var reason: String?
        /// Notifications stored in the end: the one sent before shutdown, plus this one if it was accepted.
        var stored: Int
        var testDescription: String { name }
    }

    static let inFlightCases = [
        InFlightCase(name: "accepted: committed and answered 200", body: GatewayFixture.alertBody, status: 200, reason: nil, stored: 2),
        InFlightCase(name: "refused: answered 400 PayloadEmpty", body: Array("not json".utf8), status: 400, reason: "PayloadEmpty", stored: 1),
    ]

    @Test("a request in flight when shutdown starts is answered, then the connection closes", arguments: inFlightCases)
    func shutdownDrainsInFlight(_ testCase: InFlightCase) async throws {
        let fixture = try await GatewayFixture.start { $0.shutdownGracePeriod = Self.longGracePeriod }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let path = "/3/device/\(token.hex)"
        let headers = fixture.alertHeaders()
        #expect(try await client.send(path: path, headers: headers, body: GatewayFixture.alertBody).status == 200)
        let pending = try await client.open(path: path, headers: headers)
        // Once the PING comes back the server has read the request's HEADERS.
        try await client.ping()

        async let stopped: Void = fixture.stopGateway()
        #expect(try await client.firstGoAway.get(within: .seconds(5)) == #"{"reason":"Shutdown"}"#)
        try await pending.finish(body: testCase.body)
        let response = try await pending.response.get(within: .seconds(5))
        #expect(response.status == testCase.status)
        #expect(response.reason == testCase.reason)
        try await client.closed.get(within: .seconds(5))
        await stopped
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).count == testCase.stored)
        await fixture.stop()
    }

    @Test("a stream the client resets during shutdown does not keep the connection open")
    func shutdownWithResetStream() async throws {
        let fixture = try await GatewayFixture.start { $0.shutdownGracePeriod = Self.longGracePeriod }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let pending = try await client.open(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders())
        try await client.ping()

        async let stopped: Void = fixture.stopGateway()
        #expect(try await client.firstGoAway.get(within: .seconds(5)) == #"{"reason":"Shutdown"}"#)
        // Closing an unfinished stream sends RST_STREAM (CANCEL); the close itself reports the cancellation.
        _ = try? await pending.stream.close().get(within: .seconds(5))
        try await client.closed.get(within: .seconds(5))
        await stopped
        await fixture.stop()
    }

    @Test("an idle connection gets GOAWAY IdleTimeout and is closed")
    func idleTimeout() async throws {
        // 1 s, not less: the connection is idle between the client's preface and its first request too, and on a
        // busy machine that gap once exceeded 300 ms (the server closed first; the send failed on a closed channel).
        let fixture = try await GatewayFixture.start { $0.idleTimeout = .seconds(1) }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        #expect(try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody).status == 200)

        let goAway = try await client.firstGoAway.get(within: .seconds(5))
        #expect(goAway == #"{"reason":"IdleTimeout"}"#)
        try await client.closed.get(within: .seconds(5))
        await fixture.stop()
    }

    @Test("a connection that never sends a byte is closed when idle")
    func silentConnectionIdle() async throws {
        let fixture = try await GatewayFixture.start { $0.idleTimeout = .milliseconds(300) }
        let channel = try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: try await fixture.port(tls: false)).get()
        try await channel.closeFuture.get(within: .seconds(5))
        await fixture.stop()
    }

    @Test("a connection that never sends a byte does not hold up graceful shutdown")
    func silentConnectionShutdown() async throws {
        let fixture = try await GatewayFixture.start { $0.shutdownGracePeriod = Self.longGracePeriod }
        let channel = try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: try await fixture.port(tls: false)).get()
        // Wait (bounded) until the gateway has accepted it, so that shutdown has to deal with it.
        try await eventually("the gateway holds the connection", within: .seconds(5)) { await fixture.gateway.connectionCount > 0 }
        async let stopped: Void = fixture.stopGateway()
        try await channel.closeFuture.get(within: .seconds(5))
        await stopped
        await fixture.stop()
    }
}
