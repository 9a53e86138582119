import Crypto
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldJWT

@Suite("Provider token parsing and signatures", .tier(.unit))
struct ProviderTokenTests {
    let key = AuthFixtures.privateKey()

    @Test("a token from makeToken parses back with its key, team and iat")
    func roundTrip() throws {
        let text = key.makeToken(issuedAt: AuthFixtures.now)
        let token = try ProviderToken(parsing: text)
        #expect(token.keyID == "KEYAAAAAAA")
        #expect(token.teamID == AuthFixtures.teamID)
        #expect(token.issuedAt == AuthFixtures.now)
        #expect(token.hasValidSignature(for: key.privateKey.publicKey))
    }

    @Test(
        "iat as a JSON integer, float or numeric string",
        arguments: [
            ("1750000000", Int64(1_750_000_000)), ("1750000000.75", 1_750_000_000), (#""1750000000""#, 1_750_000_000),
            (#""1750000000.5""#, 1_750_000_000), ("1.75e9", 1_750_000_000),
        ]
    )
    func issuedAtForms(literal: String, expected: Int64) throws {
        let text = try ProviderToken.make(
            header: #"{"alg":"ES256","kid":"KEYAAAAAAA"}"#,
            claims: #"{"iss":"TEAMAAAAAA","iat":\#(literal)}"#,
            privateKey: key.privateKey
        )
        #expect(try ProviderToken(parsing: text).issuedAt == expected)
    }

    @Test("iat that is not a number is refused", arguments: [#""soon""#, "true", "null", "[1]", #""""#])
    func badIssuedAt(literal: String) throws {
        let text = try ProviderToken.make(
            header: #"{"alg":"ES256","kid":"KEYAAAAAAA"}"#,
            claims: #"{"iss":"TEAMAAAAAA","iat":\#(literal)}"#,
            privateKey: key.privateKey
        )
        #expect(throws: ProviderTokenError.missingIssuedAt) { try ProviderToken(parsing: text) }
    }

    @Test(
        "alg other than ES256, none, or missing is refused",
        arguments: [
            #"{"alg":"HS256","kid":"KEYAAAAAAA"}"#, #"{"alg":"none","kid":"KEYAAAAAAA"}"#, #"{"kid":"KEYAAAAAAA"}"#,
            #"{"alg":"es256","kid":"KEYAAAAAAA"}"#,
        ]
    )
    func algorithm(header: String) throws {
        let text = try ProviderToken.make(header: header, claims: #"{"iss":"TEAMAAAAAA","iat":1}"#, privateKey: key.privateKey)
        #expect(throws: ProviderTokenError.unsupportedAlgorithm) { try ProviderToken(parsing: text) }
        #expect(ProviderTokenError.unsupportedAlgorithm.reason == .invalidProviderToken)
    }

    @Test("kid and iss are required")
    func requiredFields() throws {
        let noKid = try ProviderToken.make(header: #"{"alg":"ES256"}"#, claims: #"{"iss":"TEAMAAAAAA","iat":1}"#, privateKey: key.privateKey)
        #expect(throws: ProviderTokenError.missingKeyID) { try ProviderToken(parsing: noKid) }
        let noIss = try ProviderToken.make(header: #"{"alg":"ES256","kid":"KEYAAAAAAA"}"#, claims: #"{"iat":1}"#, privateKey: key.privateKey)
        #expect(throws: ProviderTokenError.missingIssuer) { try ProviderToken(parsing: noIss) }
    }

    @Test("malformed tokens", arguments: ["abc", "a.b", "a.b.c.d", "..", "!!.??.**", "e30.e30.", "bm90IGpzb24.e30.AAAA"])
    func malformed(text: String) {
        #expect(throws: ProviderTokenError.malformedToken) { try ProviderToken(parsing: text) }
    }

    @Test("DER-encoded signatures verify as well as raw ones")
    func derSignature() throws {
        let der = key.makeToken(issuedAt: AuthFixtures.now, signatureEncoding: .der)
        let raw = key.makeToken(issuedAt: AuthFixtures.now, signatureEncoding: .raw)
        let derToken = try ProviderToken(parsing: der)
        #expect(derToken.signatureBytes.count != 64)
        #expect(derToken.signatureBytes.first == 0x30)
        #expect(derToken.hasValidSignature(for: key.privateKey.publicKey))
        #expect(try ProviderToken(parsing: raw).signatureBytes.count == 64)
    }

    @Test("a signature by another key, or over other bytes, does not verify")
    func badSignature() throws {
        let other = AuthFixtures.privateKey("KEYBBBBBBB")
        let token = try ProviderToken(parsing: key.makeToken(issuedAt: AuthFixtures.now))
        #expect(!token.hasValidSignature(for: other.privateKey.publicKey))

        // Same header and signature, other claims.
        let parts = key.makeToken(issuedAt: AuthFixtures.now).split(separator: ".")
        let forgedClaims = Base64URL.encode(#"{"iss":"TEAMAAAAAA","iat":1750009999}"#)
        let forged = try ProviderToken(parsing: "\(parts[0]).\(forgedClaims).\(parts[2])")
        #expect(!forged.hasValidSignature(for: key.privateKey.publicKey))
    }

    @Test("base64url accepts padding and the standard alphabet, and round-trips")
    func base64URL() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x01]
        let encoded = Base64URL.encode(bytes)
        #expect(encoded == "-_-_AAE")
        #expect(Base64URL.decode(Array(encoded.utf8)) == bytes)
        #expect(Base64URL.decode(Array("+/+/AAE=".utf8)) == bytes)
        #expect(Base64URL.decode(Array("A".utf8)) == nil)
        #expect(Base64URL.decode(Array("AB$C".utf8)) == nil)
    }
}
