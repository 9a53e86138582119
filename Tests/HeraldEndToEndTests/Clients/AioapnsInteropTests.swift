import Foundation
import HeraldAuth
import HeraldCore
import HeraldGateway
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Tier 3 interop: aioapns (PyPI), an unmodified APNs client, against a live gateway over TLS.
///
/// Each run sends three alerts in order: to a registered token (200), to a token nobody registered
/// (400 `BadDeviceToken`) and to an unregistered one (410 `Unregistered`).
@Suite("Interop: aioapns against a live gateway", .serialized, .tier(.process))
struct AioapnsInteropTests {
    @Test("token authentication (.p8): 200, 400 BadDeviceToken, 410 Unregistered on one connection")
    func tokenAuthentication() async throws {
        try await withGateway { fixture in
            let p8 = fixture.directory.appendingPathComponent("AuthKey.p8")
            try fixture.key.write(p8To: p8)
            let credentials = ["--p8", p8.path, "--key-id", GatewayFixture.keyID, "--team-id", GatewayFixture.teamID]
            try await sendThreeAndCheck(fixture, credentials: credentials)
        }
    }

    @Test("certificate authentication: 200, 400 BadDeviceToken, 410 Unregistered on one connection")
    func certificateAuthentication() async throws {
        try await withGateway { fixture in
            let issued = try fixture.pki.authority.issueProviderCertificate(
                topics: [GatewayFixture.topic],
                environments: .both,
                teamID: GatewayFixture.teamID,
                now: Date()
            )
            let certificate = fixture.directory.appendingPathComponent("provider.pem")
            let privateKey = fixture.directory.appendingPathComponent("provider-key.pem")
            try issued.write(certificateTo: certificate, privateKeyTo: privateKey)
            try await sendThreeAndCheck(fixture, credentials: ["--cert", certificate.path, "--key", privateKey.path])
        }
    }

    @Test("fault rules as aioapns sees them: 503 once, a delayed 200, 429 for one token, 410 with the rule's timestamp")
    func faults() async throws {
        try await withGateway { fixture in
            let first = try await fixture.registerToken()
            let second = try await fixture.registerToken()
            let throttled = try await fixture.registerToken()
            let gone = try await fixture.registerToken()
            for rule in [
                #"{"match": {"topic": "\#(GatewayFixture.topic)"}, "status": 503, "reason": "ServiceUnavailable", "count": 1}"#,
                #"{"match": {"token": "\#(second.hex)"}, "delayMs": 300}"#,
                #"{"match": {"token": "\#(throttled.hex)"}, "status": 429}"#,
                #"{"match": {"token": "\#(gone.hex)"}, "status": 410, "timestamp": 1700000000000}"#,
            ] {
                try fixture.faults.add(FaultRule(json: Array(rule.utf8)))
            }
            let p8 = fixture.directory.appendingPathComponent("AuthKey.p8")
            try fixture.key.write(p8To: p8)
            let port = try await fixture.port(tls: true)
            var arguments = ["--host", "127.0.0.1", "--port", "\(port)", "--ca", fixture.pki.files.caCertificate.path]
            arguments += ["--topic", GatewayFixture.topic, "--p8", p8.path, "--key-id", GatewayFixture.keyID, "--team-id", GatewayFixture.teamID]
            arguments += ["--token", first.hex, "--token", first.hex, "--token", second.hex, "--token", throttled.hex, "--token", gone.hex]
            let (result, answers) = try await Interop.aioapns(arguments)
            #expect(result.succeeded, "\(result)")
            try #require(answers.count == 5, "\(result)")
            #expect(answers.map(\.status) == [503, 200, 200, 429, 410], "\(result)")
            #expect(answers.map(\.reason) == ["ServiceUnavailable", nil, nil, "TooManyRequests", "Unregistered"], "\(result)")
            #expect(answers[4].timestamp == 1_700_000_000_000, "\(result)")
            #expect(answers.allSatisfy { isUUID($0.apnsID) }, "\(result)")
            #expect(Set(answers.map(\.connection)) == [1], "one connection throughout: \(result)")
            #expect(try await fixture.store.listNotifications(token: first, limit: 10).count == 1)
            #expect(try await fixture.store.listNotifications(token: second, limit: 10).count == 1)
            #expect(try await fixture.store.listNotifications(token: throttled, limit: 10).isEmpty)
        }
    }

    @Test("liveactivity through aioapns' PushType: 200 to push-to-start and activity tokens, 400 DeviceTokenNotForTopic, 410 retired")
    func liveActivityPushes() async throws {
        try await withGateway { fixture in
            let p8 = fixture.directory.appendingPathComponent("AuthKey.p8")
            try fixture.key.write(p8To: p8)
            let tokens = try await fixture.registerTokensOfEachKind()
            let retired = try await fixture.registerTokensOfEachKind().activity
            let retiredAt = fixture.clock.nowMilliseconds() + 1_000
            try await fixture.store.unregister(retired, atMilliseconds: retiredAt)
            fixture.clock.advance(seconds: 60)
            let now = fixture.clock.nowSeconds()
            let start =
                #"{"aps":{"event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderNumber":7},"#
                + #""content-state":{"status":"preparing"},"alert":{"title":"Order","body":"Preparing"}}}"#

            let port = try await fixture.port(tls: true)
            var arguments = ["--host", "127.0.0.1", "--port", "\(port)", "--ca", fixture.pki.files.caCertificate.path]
            arguments += ["--topic", GatewayFixture.topic + ".push-type.liveactivity", "--push-type", "liveactivity", "--payload", start]
            arguments += ["--p8", p8.path, "--key-id", GatewayFixture.keyID, "--team-id", GatewayFixture.teamID]
            for token in [tokens.pushToStart, tokens.activity, tokens.device, retired] { arguments += ["--token", token.hex] }
            let (result, answers) = try await Interop.aioapns(arguments)

            #expect(result.succeeded, "\(result)")
            try #require(answers.count == 4, "\(result)")
            #expect(answers.map(\.status) == [200, 200, 400, 410], "\(result)")
            #expect(answers.map(\.reason) == [nil, nil, "DeviceTokenNotForTopic", "Unregistered"], "\(result)")
            #expect(answers[3].timestamp == retiredAt, "\(result)")
            let stored = try #require(try await fixture.store.listNotifications(token: tokens.pushToStart, limit: 1).first)
            #expect(stored.notification.pushType == .liveactivity)
            #expect(stored.notification.topic == GatewayFixture.topic + ".push-type.liveactivity")
        }
    }

    private func sendThreeAndCheck(_ fixture: GatewayFixture, credentials: [String]) async throws {
        let valid = try await fixture.registerToken()
        let unregistered = try await fixture.registerToken()
        // Registered at T, unregistered at T + 1.5 s, pushed at T + 60 s: the timestamp can only be the second.
        let unregisteredAt = fixture.clock.nowMilliseconds() + 1_500
        try await fixture.store.unregister(unregistered, atMilliseconds: unregisteredAt)
        fixture.clock.advance(seconds: 60)

        let port = try await fixture.port(tls: true)
        var arguments = ["--host", "127.0.0.1", "--port", "\(port)", "--ca", fixture.pki.files.caCertificate.path]
        arguments += ["--topic", GatewayFixture.topic] + credentials
        arguments += ["--token", valid.hex, "--token", unknownDeviceToken, "--token", unregistered.hex]
        let (result, answers) = try await Interop.aioapns(arguments)

        #expect(result.succeeded, "\(result)")
        try #require(answers.count == 3, "\(result)")
        #expect(answers.map(\.token) == [valid.hex, unknownDeviceToken, unregistered.hex])
        #expect(answers.map(\.status) == [200, 400, 410], "\(result)")
        #expect(answers.map(\.reason) == [nil, "BadDeviceToken", "Unregistered"], "\(result)")
        #expect(answers.allSatisfy { isUUID($0.apnsID) }, "\(result)")
        #expect(answers[0].timestamp == nil)
        #expect(answers[1].timestamp == nil)
        #expect(answers[2].timestamp == unregisteredAt, "\(result)")
        // APNs keeps the connection open across answers, errors included: aioapns must not have reconnected.
        #expect(answers.map(\.connection) == [1, 1, 1], "\(result)")

        let stored = try await fixture.store.listNotifications(token: valid, limit: 10)
        #expect(stored.count == 1)
        #expect(stored.first?.notification.id.text == answers[0].apnsID)
        #expect(try await fixture.store.listNotifications(token: unregistered, limit: 10).isEmpty)
    }
}
