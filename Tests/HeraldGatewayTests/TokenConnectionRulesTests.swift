import Foundation
import HeraldAuth
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The token rules that bind a connection (spec §A.7 "Connection binding", "Lifetime"), over one real HTTP/2 connection.
@Suite("Token rules on one connection", .serialized, .tier(.inProcess))
struct TokenConnectionRulesTests {
    private func send(
        _ client: HTTP2TestClient,
        _ fixture: GatewayFixture,
        to token: DeviceToken,
        jwt: String,
        topic: String = GatewayFixture.topic
    )
        async throws -> TestResponse
    {
        try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(jwt: jwt, topic: topic), body: GatewayFixture.alertBody)
    }

    @Test("a new token within 20 minutes is TooManyProviderTokenUpdates; after 20 minutes it is accepted")
    func tokenUpdates() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let start = fixture.clock.nowSeconds()
        let first = fixture.jwt(issuedAt: start)
        #expect(try await send(client, fixture, to: token, jwt: first).status == 200)

        let early = try await send(client, fixture, to: token, jwt: fixture.jwt(issuedAt: start - 1))
        #expect(early.status == 429)
        #expect(early.reason == "TooManyProviderTokenUpdates")
        // The refused update leaves the connection on its current token.
        #expect(try await send(client, fixture, to: token, jwt: first).status == 200)

        fixture.clock.advance(seconds: 1199)
        let almost = try await send(client, fixture, to: token, jwt: fixture.jwt(issuedAt: start + 1199))
        #expect(almost.reason == "TooManyProviderTokenUpdates")

        fixture.clock.advance(seconds: 1)
        let refreshed = fixture.jwt(issuedAt: start + 1200)
        #expect(try await send(client, fixture, to: token, jwt: refreshed).status == 200)
        // Streams signed before the refresh may still arrive with the previous token.
        #expect(try await send(client, fixture, to: token, jwt: first).status == 200)
        await client.close()
        await fixture.stop()
    }

    @Test("a second topic-specific key unrelated to the first is UnrelatedKeyIdInToken")
    func unrelatedKey() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let first = try await fixture.addKey(topics: [GatewayFixture.topic])
        let second = try await fixture.addKey(topics: [GatewayFixture.topic])
        let client = try await fixture.cleartextClient()
        #expect(try await send(client, fixture, to: token, jwt: fixture.jwt(key: first)).status == 200)

        let response = try await send(client, fixture, to: token, jwt: fixture.jwt(key: second))
        #expect(response.status == 403)
        #expect(response.reason == "UnrelatedKeyIdInToken")

        // The same key is fine on a connection of its own.
        let other = try await fixture.cleartextClient()
        #expect(try await send(other, fixture, to: token, jwt: fixture.jwt(key: second)).status == 200)
        await other.close()
        await client.close()
        await fixture.stop()
    }

    @Test("a team-scoped key after a topic-specific one is UnrelatedKeyIdInToken")
    func teamKeyAfterTopicKey() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let topicKey = try await fixture.addKey(topics: [GatewayFixture.topic])
        let client = try await fixture.cleartextClient()
        #expect(try await send(client, fixture, to: token, jwt: fixture.jwt(key: topicKey)).status == 200)
        let response = try await send(client, fixture, to: token, jwt: fixture.jwt())
        #expect(response.status == 403)
        #expect(response.reason == "UnrelatedKeyIdInToken")
        await client.close()
        await fixture.stop()
    }

    @Test("a token of another team on a bound connection is Forbidden")
    func otherTeam() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let otherTeamKey = try await fixture.addKey(teamID: "OTHERTEAM1")
        let client = try await fixture.cleartextClient()
        #expect(try await send(client, fixture, to: token, jwt: fixture.jwt()).status == 200)

        let response = try await send(client, fixture, to: token, jwt: fixture.jwt(key: otherTeamKey))
        #expect(response.status == 403)
        #expect(response.reason == "Forbidden")

        // Nothing is wrong with the token itself: it is accepted on a fresh connection.
        let fresh = try await fixture.cleartextClient()
        #expect(try await send(fresh, fixture, to: token, jwt: fixture.jwt(key: otherTeamKey)).status == 200)
        await fresh.close()
        await client.close()
        await fixture.stop()
    }

    @Test("a topic-specific key used for another topic is TopicDisallowed")
    func topicDisallowed() async throws {
        let fixture = try await GatewayFixture.start()
        let ownToken = try await fixture.registerToken()
        let otherToken = try await fixture.registerToken(topic: "com.example.other")
        let key = try await fixture.addKey(topics: [GatewayFixture.topic])
        let client = try await fixture.cleartextClient()
        let jwt = fixture.jwt(key: key)

        let response = try await send(client, fixture, to: otherToken, jwt: jwt, topic: "com.example.other")
        #expect(response.status == 400)
        #expect(response.reason == "TopicDisallowed")
        #expect(try await send(client, fixture, to: ownToken, jwt: jwt).status == 200)
        await client.close()
        await fixture.stop()
    }

    @Test("iat more than 60 s in the future is InvalidProviderToken; 60 s is tolerated")
    func futureIssuedAt() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let now = fixture.clock.nowSeconds()

        let client = try await fixture.cleartextClient()
        let future = try await send(client, fixture, to: token, jwt: fixture.jwt(issuedAt: now + 61))
        #expect(future.status == 403)
        #expect(future.reason == "InvalidProviderToken")
        await client.close()

        let skewed = try await fixture.cleartextClient()
        #expect(try await send(skewed, fixture, to: token, jwt: fixture.jwt(issuedAt: now + 60)).status == 200)
        await skewed.close()
        await fixture.stop()
    }

    @Test("iat as a numeric string or a float is accepted", arguments: ["\"%d\"", "%d.75"])
    func issuedAtForms(_ format: String) async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let iat = String(format: format, Int(fixture.clock.nowSeconds()))
        let jwt = try ProviderToken.make(
            header: #"{"alg":"ES256","kid":"\#(GatewayFixture.keyID)"}"#,
            claims: #"{"iss":"\#(GatewayFixture.teamID)","iat":\#(iat)}"#,
            privateKey: fixture.key.privateKey
        )
        let client = try await fixture.cleartextClient()
        let response = try await send(client, fixture, to: token, jwt: jwt)
        #expect(response.status == 200)
        #expect(response.reason == nil)
        await client.close()
        await fixture.stop()
    }

    @Test("an app of another team is TopicDisallowed; its own team's key and apps without a team are accepted")
    func appOfAnotherTeam() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let otherApp = "com.other.app"
        let otherToken = try await fixture.registerToken(topic: otherApp)
        let unboundToken = try await fixture.registerToken(topic: "com.unbound.app")
        try await fixture.store.addApp(bundleID: GatewayFixture.topic, teamID: GatewayFixture.teamID)
        try await fixture.store.addApp(bundleID: otherApp, teamID: "OTHERTEAM1")
        let client = try await fixture.cleartextClient()
        let jwt = fixture.jwt()
        #expect(try await send(client, fixture, to: token, jwt: jwt).status == 200)
        let refused = try await send(client, fixture, to: otherToken, jwt: jwt, topic: otherApp)
        #expect(refused.status == 400)
        #expect(refused.reason == "TopicDisallowed")
        #expect(try await send(client, fixture, to: unboundToken, jwt: jwt, topic: "com.unbound.app").status == 200)

        // The other team's key pushes to its own app, on a connection of its own (a connection binds to one team).
        let otherKey = try await fixture.addKey(teamID: "OTHERTEAM1")
        let other = try await fixture.cleartextClient()
        let otherJWT = fixture.jwt(key: otherKey)
        #expect(try await send(other, fixture, to: otherToken, jwt: otherJWT, topic: otherApp).status == 200)
        #expect(try await send(other, fixture, to: token, jwt: otherJWT).reason == "TopicDisallowed")

        // Removing the app's team opens it to any team again.
        try await fixture.store.removeApp(bundleID: otherApp)
        #expect(try await send(client, fixture, to: otherToken, jwt: jwt, topic: otherApp).status == 200)
        await other.close()
        await client.close()
        await fixture.stop()
    }
}
