import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldAuth

@Suite("Connection authentication state machine", .tier(.unit))
struct ConnectionAuthenticationTests {
    let now = AuthFixtures.now
    let teamKey = try! AuthFixtures.privateKey("KEYAAAAAAA").record(environments: .sandbox)
    let secondTeamKey = try! AuthFixtures.privateKey("KEYBBBBBBB").record(environments: .sandbox)
    let productionKey = try! AuthFixtures.privateKey("KEYPPPPPPP").record(environments: .production)
    let universalKey = try! AuthFixtures.privateKey("KEYUUUUUUU").record(environments: .both)
    let topicKey = try! AuthFixtures.privateKey("KEYTTTTTTT").record(
        environments: .sandbox,
        topics: ["com.example.app"],
        relatedKeyID: "KEYRRRRRRR"
    )
    let relatedTopicKey = try! AuthFixtures.privateKey("KEYRRRRRRR").record(environments: .sandbox, topics: ["com.example.app"])
    let unrelatedTopicKey = try! AuthFixtures.privateKey("KEYXXXXXXX").record(environments: .sandbox, topics: ["com.example.app"])
    let otherTeamKey = try! AuthFixtures.privateKey("KEYOOOOOOO", team: AuthFixtures.otherTeamID).record(environments: .sandbox)

    func authorize(
        _ connection: inout ConnectionAuthentication,
        _ key: SigningKey,
        token: String? = nil,
        topic: String? = "com.example.app",
        at time: Int64? = nil
    ) -> ConnectionAuthentication.Decision {
        connection.authorize(
            token: .success(AuthFixtures.identity(key, token: token)),
            topic: topic,
            bundleID: topic,
            nowSeconds: time ?? now
        )
    }

    @Test("the first valid token binds the connection and says so once")
    func firstToken() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        #expect(!connection.isAuthenticated)
        let first = authorize(&connection, teamKey)
        #expect(first.isAccepted)
        #expect(first.isFirstValidToken)
        #expect(first.teamID == AuthFixtures.teamID)
        #expect(first.keyID == "KEYAAAAAAA")
        #expect(connection.isAuthenticated)
        #expect(connection.boundKeyID == "KEYAAAAAAA")
        let second = authorize(&connection, teamKey)
        #expect(second.isAccepted)
        #expect(!second.isFirstValidToken)
    }

    @Test("a token failure answers its reason and does not bind")
    func tokenFailure() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        let missing = connection.authorize(token: .failure(.missing), topic: nil, bundleID: nil, nowSeconds: now)
        #expect(missing.rejection == .missingProviderToken)
        let expired = connection.authorize(token: .failure(.expired), topic: nil, bundleID: nil, nowSeconds: now)
        #expect(expired.rejection == .expiredProviderToken)
        #expect(!connection.isAuthenticated)
    }

    @Test("no authorization and no certificate is MissingProviderToken, through the verifier too")
    func missingThroughVerifier() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        let verifier = ProviderTokenVerifier(keys: [teamKey])
        let decision = connection.authorize(authorization: "", topic: "com.example.app", bundleID: nil, verifier: verifier, nowSeconds: now)
        #expect(decision.rejection == .missingProviderToken)
        #expect(connection.authorize(topic: "com.example.app", nowSeconds: now).rejection == .missingProviderToken)
    }

    @Test("a token of another team on a bound connection is Forbidden (configurable)")
    func otherTeam() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        #expect(authorize(&connection, teamKey).isAccepted)
        #expect(authorize(&connection, otherTeamKey, at: now + 3000).rejection == .forbidden)

        var custom = ConnectionAuthentication(environment: .sandbox, configuration: .init(otherTeamReason: .unrelatedKeyIdInToken))
        #expect(authorize(&custom, teamKey).isAccepted)
        #expect(authorize(&custom, otherTeamKey, at: now + 3000).rejection == .unrelatedKeyIdInToken)
    }

    @Test("a key for the other environment is BadEnvironmentKeyInToken, or the documented spelling when configured")
    func environment() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        let first = authorize(&connection, productionKey)
        #expect(first.rejection == .badEnvironmentKeyInToken)
        #expect(!first.isFirstValidToken)
        #expect(!connection.isAuthenticated)

        var documented = ConnectionAuthentication(environment: .sandbox, configuration: .init(badEnvironmentKeyReason: .badEnvironmentKeyIdInToken))
        #expect(authorize(&documented, productionKey).rejection == .badEnvironmentKeyIdInToken)
        #expect(APNSReason.badEnvironmentKeyIdInToken.status == 403)

        var production = ConnectionAuthentication(environment: .production)
        #expect(authorize(&production, productionKey).isAccepted)
        #expect(authorize(&production, teamKey, at: now + 3000).rejection == .badEnvironmentKeyInToken)
    }

    @Test("older keys work in both environments")
    func universal() {
        for environment in APNSEnvironment.allCases {
            var connection = ConnectionAuthentication(environment: environment)
            #expect(authorize(&connection, universalKey).isAccepted)
        }
    }

    @Test("after a team-scoped key: another team-scoped key is fine, a topic-specific key is UnrelatedKeyIdInToken")
    func boundToTeamKey() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        #expect(authorize(&connection, teamKey).isAccepted)
        #expect(authorize(&connection, secondTeamKey, at: now + 1200).isAccepted)
        #expect(authorize(&connection, topicKey, at: now + 2400).rejection == .unrelatedKeyIdInToken)
    }

    @Test("after a topic-specific key: its related key is fine; unrelated and team-scoped keys are UnrelatedKeyIdInToken")
    func boundToTopicKey() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        #expect(authorize(&connection, topicKey).isAccepted)
        #expect(authorize(&connection, unrelatedTopicKey, at: now + 1200).rejection == .unrelatedKeyIdInToken)
        #expect(authorize(&connection, teamKey, at: now + 1200).rejection == .unrelatedKeyIdInToken)
        #expect(authorize(&connection, relatedTopicKey, at: now + 1200).isAccepted)
    }

    @Test("a topic not in a topic-specific key's list is TopicDisallowed, yet the token still binds")
    func topicDisallowed() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        let decision = authorize(&connection, topicKey, topic: "com.example.other")
        #expect(decision.rejection == .topicDisallowed)
        #expect(decision.isFirstValidToken)
        #expect(connection.isAuthenticated)
        #expect(authorize(&connection, topicKey, topic: "com.example.app").isAccepted)
        #expect(authorize(&connection, topicKey, topic: nil).isAccepted)
        #expect(authorize(&connection, teamKey, topic: "com.example.other").rejection == .unrelatedKeyIdInToken)
    }

    @Test("a new token less than 20 minutes after the previous new one is TooManyProviderTokenUpdates")
    func tokenUpdates() {
        var connection = ConnectionAuthentication(environment: .sandbox)
        #expect(authorize(&connection, teamKey, token: "t1", at: now).isAccepted)
        #expect(authorize(&connection, teamKey, token: "t1", at: now + 100).isAccepted)
        #expect(authorize(&connection, teamKey, token: "t2", at: now + 1199).rejection == .tooManyProviderTokenUpdates)
        #expect(authorize(&connection, teamKey, token: "t1", at: now + 1199).isAccepted)
        #expect(authorize(&connection, teamKey, token: "t2", at: now + 1200).isAccepted)
        // The token before the current one stays usable (streams signed before a refresh).
        #expect(authorize(&connection, teamKey, token: "t1", at: now + 1201).isAccepted)
        #expect(authorize(&connection, teamKey, token: "t3", at: now + 1300).rejection == .tooManyProviderTokenUpdates)
        #expect(authorize(&connection, teamKey, token: "t3", at: now + 2400).isAccepted)
        // Now t1 is two tokens back: a new token again, too soon.
        #expect(authorize(&connection, teamKey, token: "t1", at: now + 2500).rejection == .tooManyProviderTokenUpdates)
    }

    @Test("the update interval is configurable")
    func configurableInterval() {
        var connection = ConnectionAuthentication(environment: .sandbox, configuration: .init(minimumTokenUpdateInterval: 60))
        #expect(authorize(&connection, teamKey, token: "t1", at: now).isAccepted)
        #expect(authorize(&connection, teamKey, token: "t2", at: now + 59).rejection == .tooManyProviderTokenUpdates)
        #expect(authorize(&connection, teamKey, token: "t2", at: now + 60).isAccepted)
    }

    @Test("end to end with the verifier: an expired token on a bound connection")
    func endToEnd() throws {
        let signer = AuthFixtures.privateKey("KEYAAAAAAA")
        let verifier = ProviderTokenVerifier(keys: [try signer.record(environments: .sandbox)])
        var connection = ConnectionAuthentication(environment: .sandbox)
        let header = "bearer \(signer.makeToken(issuedAt: now))"
        let first = connection.authorize(authorization: header, topic: "com.example.app", bundleID: nil, verifier: verifier, nowSeconds: now)
        #expect(first.isAccepted && first.isFirstValidToken)
        let late = connection.authorize(authorization: header, topic: "com.example.app", bundleID: nil, verifier: verifier, nowSeconds: now + 3601)
        #expect(late.rejection == .expiredProviderToken)
    }
}
