import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldJWT

@Suite("Signing keys and .p8 files", .tier(.unit))
struct SigningKeyTests {
    @Test("a generated key's .p8 is PKCS#8 PEM and reads back to the same key")
    func p8RoundTrip() throws {
        let key = try PrivateSigningKey.generate(teamID: AuthFixtures.teamID)
        #expect(SigningKey.isWellFormedID(key.keyID))
        #expect(key.p8.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try PrivateSigningKey(keyID: key.keyID, teamID: key.teamID, p8: key.p8)
        #expect(loaded.privateKey.rawRepresentation == key.privateKey.rawRepresentation)
        // A token signed with the loaded key verifies with the original's record.
        let verifier = ProviderTokenVerifier(keys: [try key.record()])
        #expect(verifier.verify(token: loaded.makeToken(issuedAt: AuthFixtures.now), nowSeconds: AuthFixtures.now).isSuccess)
    }

    @Test("a .p8 file written with 0600 loads back")
    func p8File() throws {
        let directory = try TemporaryDirectory()
        let key = AuthFixtures.privateKey()
        let file = directory.url.appendingPathComponent("AuthKey_\(key.keyID).p8")
        try key.write(p8To: file)
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let loaded = try PrivateSigningKey(keyID: key.keyID, teamID: key.teamID, contentsOf: file)
        #expect(loaded.privateKey.publicKey.rawRepresentation == key.privateKey.publicKey.rawRepresentation)
    }

    @Test("an OpenSSL SEC 1 `EC PRIVATE KEY` is read too", .enabled(if: Tool.hasOpenSSL))
    func sec1() throws {
        let output = try Tool.run("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        #expect(output.text.contains("BEGIN EC PRIVATE KEY"))
        let key = try PrivateSigningKey(keyID: "KEYAAAAAAA", teamID: AuthFixtures.teamID, p8: output.text)
        #expect(key.privateKey.publicKey.rawRepresentation.count == 64)
    }

    @Test("bad input is a CredentialError")
    func badInput() throws {
        #expect(throws: CredentialError.invalidPrivateKey) {
            try PrivateSigningKey(
                keyID: "KEYAAAAAAA",
                teamID: AuthFixtures.teamID,
                p8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
            )
        }
        #expect(throws: CredentialError.invalidKeyID) { try PrivateSigningKey.generate(teamID: AuthFixtures.teamID, keyID: "short") }
        #expect(throws: CredentialError.invalidTeamID) { try PrivateSigningKey.generate(teamID: "TEAM-0000!") }
        #expect(throws: CredentialError.missingFile) {
            try PrivateSigningKey(keyID: "KEYAAAAAAA", teamID: AuthFixtures.teamID, contentsOf: URL(fileURLWithPath: "/nonexistent/key.p8"))
        }
        #expect(throws: CredentialError.invalidPublicKey) {
            try SigningKey(keyID: "KEYAAAAAAA", teamID: AuthFixtures.teamID, publicKeyPEM: "not a key")
        }
    }

    @Test("a key record round-trips through its public key PEM")
    func publicPEM() throws {
        let record = try AuthFixtures.privateKey().record(environments: .sandbox, topics: ["com.example.app"])
        #expect(record.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let copy = try SigningKey(
            keyID: record.keyID,
            teamID: record.teamID,
            environments: .sandbox,
            topics: ["com.example.app"],
            publicKeyPEM: record.publicKeyPEM
        )
        #expect(copy == record)
    }

    @Test("environment scopes")
    func scopes() {
        #expect(EnvironmentScope.both.includes(.sandbox) && EnvironmentScope.both.includes(.production))
        #expect(EnvironmentScope.sandbox.includes(.sandbox) && !EnvironmentScope.sandbox.includes(.production))
        #expect(EnvironmentScope.production.includes(.production) && !EnvironmentScope.production.includes(.sandbox))
        #expect(EnvironmentScope(APNSEnvironment.production) == .production)
    }

    @Test("topic-specific keys allow their topics and their bundle IDs' suffixed topics")
    func topics() throws {
        let team = try AuthFixtures.privateKey().record()
        #expect(team.allows(topic: "anything.at.all", bundleID: nil))
        let specific = try AuthFixtures.privateKey().record(topics: ["com.example.app"])
        #expect(specific.allows(topic: "com.example.app", bundleID: "com.example.app"))
        #expect(specific.allows(topic: "com.example.app.voip", bundleID: "com.example.app"))
        #expect(!specific.allows(topic: "com.example.other", bundleID: "com.example.other"))
    }

    @Test("relations: team-scoped keys of a team are related; topic-specific keys only to their related key")
    func relations() throws {
        let teamA = try AuthFixtures.privateKey("KEYAAAAAAA").record()
        let teamB = try AuthFixtures.privateKey("KEYBBBBBBB").record()
        let topicC = try AuthFixtures.privateKey("KEYCCCCCCC").record(topics: ["com.example.c"], relatedKeyID: "KEYDDDDDDD")
        let topicD = try AuthFixtures.privateKey("KEYDDDDDDD").record(topics: ["com.example.d"])
        let topicE = try AuthFixtures.privateKey("KEYEEEEEEE").record(topics: ["com.example.e"])
        let otherTeam = try AuthFixtures.privateKey("KEYFFFFFFF", team: AuthFixtures.otherTeamID).record()
        #expect(teamA.isRelated(to: teamB))
        #expect(!teamA.isRelated(to: topicC))
        #expect(!topicC.isRelated(to: teamA))
        #expect(topicC.isRelated(to: topicD) && topicD.isRelated(to: topicC))
        #expect(!topicC.isRelated(to: topicE))
        #expect(!teamA.isRelated(to: otherTeam))
        #expect(topicE.isRelated(to: topicE))
    }
}

@Suite("Signing key records as JSON", .tier(.unit))
struct SigningKeyCodableTests {
    @Test("a record round-trips through JSON, and a team-scoped record needs no topics")
    func roundTrip() throws {
        let record = try AuthFixtures.privateKey().record(environments: .production, topics: ["b.app", "a.app"], relatedKeyID: "KEYBBBBBBB")
        let data = try JSONEncoder().encode(record)
        #expect(String(decoding: data, as: UTF8.self).contains(#"["a.app","b.app"]"#))
        #expect(try JSONDecoder().decode(SigningKey.self, from: data) == record)

        let minimal =
            #"{"keyID":"KEYAAAAAAA","teamID":"TEAMAAAAAA","publicKey":"\#(record.publicKeyPEM.replacingOccurrences(of: "\n", with: "\\n"))"}"#
        let decoded = try JSONDecoder().decode(SigningKey.self, from: Data(minimal.utf8))
        #expect(decoded.environments == .both)
        #expect(!decoded.isTopicSpecific)
    }

    @Test("a record with a malformed key ID does not decode")
    func invalid() throws {
        let pem = try AuthFixtures.privateKey().record().publicKeyPEM.replacingOccurrences(of: "\n", with: "\\n")
        let json = #"{"keyID":"bad","teamID":"TEAMAAAAAA","publicKey":"\#(pem)"}"#
        #expect(throws: CredentialError.invalidKeyID) { try JSONDecoder().decode(SigningKey.self, from: Data(json.utf8)) }
    }
}
