import HeraldCore
import HeraldGateway
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
}
