import HeraldCore
import HeraldGateway
import HeraldTestSupport
import HeraldTestTiers
import Testing

@Suite("Fault rules over HTTP/2: the answer instead of the real one", .serialized, .tier(.inProcess))
struct FaultAnswerTests {
    @Test("503 ServiceUnavailable once for one token: not stored, apns-id echoed; the retry is accepted")
    func serviceUnavailableOnce() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(
            FaultRule(json: Array(#"{"match": {"token": "\#(token.hex)"}, "status": 503, "reason": "ServiceUnavailable", "count": 1}"#.utf8))
        )
        let client = try await fixture.cleartextClient()
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let failed = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders() + [("apns-id", id)],
            body: GatewayFixture.alertBody
        )
        #expect(failed.status == 503)
        #expect(failed.reason == "ServiceUnavailable")
        #expect(failed.apnsID == id)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).isEmpty)
        let retried = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders() + [("apns-id", id)],
            body: GatewayFixture.alertBody
        )
        #expect(retried.status == 200)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).count == 1)
        #expect(fixture.faults.entries.first?.remaining == 0)
        await client.close()
        await fixture.stop()
    }

    @Test("410 Unregistered carries the rule's timestamp, or the time of the request; other topics pass")
    func unregistered() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"match": {"topic": "com.example.app"}, "status": 410, "timestamp": 1700000000000}"#.utf8)))
        let client = try await fixture.cleartextClient()
        let gone = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(gone.status == 410)
        #expect(gone.reason == "Unregistered")
        #expect(gone.timestamp == 1_700_000_000_000)
        fixture.faults.removeAll()
        try fixture.faults.add(FaultRule(json: Array(#"{"status": 410}"#.utf8)))
        let now = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(now.timestamp == fixture.clock.nowMilliseconds())
        await client.close()
        await fixture.stop()
    }

    @Test("delayMs holds only the matching request: another on the same connection is answered first; both are stored")
    func delayedAnswer() async throws {
        let fixture = try await GatewayFixture.start()
        let slow = try await fixture.registerToken()
        let fast = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"match": {"token": "\#(slow.hex)"}, "delayMs": 400}"#.utf8)))
        let client = try await fixture.cleartextClient()
        // One provider token for the connection: a new one within 20 minutes would be TooManyProviderTokenUpdates.
        let headers = fixture.alertHeaders()
        let started = ContinuousClock.now
        async let delayed = client.send(path: "/3/device/\(slow.hex)", headers: headers, body: GatewayFixture.alertBody)
        try await eventually("the slow push meets its rule") { fixture.faults.entries.first?.failed == 1 }
        let quick = try await client.send(path: "/3/device/\(fast.hex)", headers: headers, body: GatewayFixture.alertBody)
        let quickAt = ContinuousClock.now
        let late = try await delayed
        let lateAt = ContinuousClock.now
        #expect(quick.status == 200, "\(String(describing: quick.reason))")
        #expect(late.status == 200)
        #expect(quickAt < lateAt)
        #expect(started.duration(to: lateAt) >= .milliseconds(400))
        #expect(try await fixture.store.listNotifications(token: slow, limit: 10).count == 1)
        #expect(try await fixture.store.listNotifications(token: fast, limit: 10).count == 1)
        await client.close()
        await fixture.stop()
    }

    @Test("a delayed error over HTTP/1.1: the answer after the wait, then the connection serves the next request")
    func delayedErrorOverHTTP1() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"status": 500, "delayMs": 200, "count": 1}"#.utf8)))
        let started = ContinuousClock.now
        let headers = fixture.alertHeaders()
        let bytes =
            HTTP1TestExchange.request(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody, close: false)
            + HTTP1TestExchange.request(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody, close: true)
        let answers = try await HTTP1TestExchange.exchange(bytes, port: try await fixture.port(tls: false), group: fixture.clientGroup)
        #expect(started.duration(to: .now) >= .milliseconds(200))
        #expect(answers.map(\.status) == [500, 200])
        await fixture.stop()
    }

    @Test("goaway after the answer: 200, then GOAWAY {\"reason\":\"Shutdown\"}, then the connection closes")
    func goAwayAfterAnswer() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"goaway": "Shutdown", "count": 1}"#.utf8)))
        let client = try await fixture.cleartextClient()
        let answer = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(answer.status == 200)
        #expect(try await client.firstGoAway.get(within: .seconds(5)) == #"{"reason":"Shutdown"}"#)
        try await client.closed.get(within: .seconds(5))
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).count == 1)
        await fixture.stop()
    }

    @Test("reset: RST_STREAM instead of an answer, nothing stored; the connection serves the next request")
    func resetStream() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"reset": true, "count": 1}"#.utf8)))
        let client = try await fixture.cleartextClient()
        let headers = fixture.alertHeaders()
        await #expect(throws: (any Error).self) {
            try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody, deadline: .seconds(5))
        }
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).isEmpty)
        let next = try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody)
        #expect(next.status == 200)
        await client.close()
        await fixture.stop()
    }

    @Test("close: the connection is closed instead of an answer, nothing stored")
    func closeConnection() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"close": true}"#.utf8)))
        let client = try await fixture.cleartextClient()
        await #expect(throws: (any Error).self) {
            try await client.send(
                path: "/3/device/\(token.hex)",
                headers: fixture.alertHeaders(),
                body: GatewayFixture.alertBody,
                deadline: .seconds(5)
            )
        }
        try await client.closed.get(within: .seconds(5))
        #expect(client.receivedGoAways.isEmpty)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).isEmpty)
        await fixture.stop()
    }

    @Test("stallMs: the matching request is answered, then nothing is read for that long")
    func stall() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let other = try await fixture.registerToken()
        try fixture.faults.add(FaultRule(json: Array(#"{"match": {"token": "\#(token.hex)"}, "stallMs": 400, "count": 1}"#.utf8)))
        let client = try await fixture.cleartextClient()
        let headers = fixture.alertHeaders()
        // Measured from before the first request: the stall begins after it arrives, so this bound holds on a slow machine.
        let started = ContinuousClock.now
        let first = try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody)
        #expect(first.status == 200)
        let second = try await client.send(path: "/3/device/\(other.hex)", headers: headers, body: GatewayFixture.alertBody)
        #expect(second.status == 200)
        #expect(started.duration(to: .now) >= .milliseconds(400))
        await client.close()
        await fixture.stop()
    }

    @Test("token-expired scenario: 403 ExpiredProviderToken for the old provider token until the provider signs a new one")
    func tokenExpiredScenario() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let oldJWT = fixture.jwt(issuedAt: fixture.clock.nowSeconds() - 600)
        fixture.clock.advance(seconds: 1)
        try fixture.faults.add(FaultRule.parse(json: Array(#"{"scenario": "token-expired"}"#.utf8), nowMilliseconds: fixture.clock.nowMilliseconds()))
        let client = try await fixture.cleartextClient()
        let refused = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders(jwt: oldJWT),
            body: GatewayFixture.alertBody
        )
        #expect(refused.status == 403)
        #expect(refused.reason == "ExpiredProviderToken")
        let signedAgain = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(signedAgain.status == 200)
        await client.close()
        await fixture.stop()
    }

    @Test("throttled-device scenario: a token's pushes beyond 2 in a second get 429 TooManyRequests; the next second, 200 again")
    func throttledDeviceScenario() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        try fixture.faults.add(
            FaultRule.parse(
                json: Array(#"{"scenario": "throttled-device", "token": "\#(token.hex)", "perSecond": 2}"#.utf8),
                nowMilliseconds: fixture.clock.nowMilliseconds()
            )
        )
        let client = try await fixture.cleartextClient()
        let headers = fixture.alertHeaders()
        var statuses: [Int] = []
        for _ in 0..<4 {
            statuses.append(try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody).status)
        }
        #expect(statuses == [200, 200, 429, 429])
        fixture.clock.advance(seconds: 1)
        #expect(try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody).status == 200)
        await client.close()
        await fixture.stop()
    }
}
