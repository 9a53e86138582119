import Foundation
import HeraldAuth
import HeraldCore
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
