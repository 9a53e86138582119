import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldJWT

@Suite("Provider token verification", .tier(.unit))
struct ProviderTokenVerifierTests {
    let key = AuthFixtures.privateKey()
    let now = AuthFixtures.now

    func verifier(_ configuration: ProviderTokenVerifier.Configuration = .init()) throws -> ProviderTokenVerifier {
        ProviderTokenVerifier(keys: [try key.record()], configuration: configuration)
    }

    @Test("a valid token verifies to its key and team")
    func valid() throws {
        let verifier = try verifier()
        let identity = try verifier.verify(authorization: "bearer \(key.makeToken(issuedAt: now))", nowSeconds: now).get()
        #expect(identity.keyID == key.keyID)
        #expect(identity.teamID == key.teamID)
        #expect(identity.issuedAt == now)
    }

    @Test("a DER-signed token verifies")
    func derSigned() throws {
        let token = key.makeToken(issuedAt: now, signatureEncoding: .der)
        #expect(try verifier().verify(token: token, nowSeconds: now).get().keyID == key.keyID)
    }

    @Test("a missing authorization is MissingProviderToken")
    func missing() throws {
        let result = try verifier().verify(authorization: nil, nowSeconds: now)
        #expect(result.failureReason == .missingProviderToken)
    }

    @Test("an unknown kid is InvalidProviderToken")
    func unknownKey() throws {
        let stranger = AuthFixtures.privateKey("KEYZZZZZZZ")
        let result = try verifier().verify(token: stranger.makeToken(issuedAt: now), nowSeconds: now)
        #expect(result == .failure(.unknownKey))
        #expect(result.failureReason == .invalidProviderToken)
    }

    @Test("iss other than the key's team is InvalidProviderToken")
    func teamMismatch() throws {
        let token = try ProviderToken.make(keyID: key.keyID, teamID: AuthFixtures.otherTeamID, issuedAt: now, privateKey: key.privateKey)
        let result = try verifier().verify(token: token, nowSeconds: now)
        #expect(result == .failure(.teamMismatch))
        #expect(result.failureReason == .invalidProviderToken)
    }

    @Test("a token signed by another private key under a known kid is InvalidProviderToken")
    func badSignature() throws {
        let impostor = try PrivateSigningKey.generate(teamID: key.teamID, keyID: key.keyID)
        let result = try verifier().verify(token: impostor.makeToken(issuedAt: now), nowSeconds: now)
        #expect(result == .failure(.badSignature))
        #expect(result.failureReason == .invalidProviderToken)
    }

    @Test("iat more than an hour old is ExpiredProviderToken; exactly an hour is still valid")
    func expired() throws {
        let verifier = try verifier()
        #expect(verifier.verify(token: key.makeToken(issuedAt: now - 3600), nowSeconds: now).isSuccess)
        let result = verifier.verify(token: key.makeToken(issuedAt: now - 3601), nowSeconds: now)
        #expect(result == .failure(.expired))
        #expect(result.failureReason == .expiredProviderToken)
    }

    @Test("the maximum age is configurable")
    func configurableAge() throws {
        let verifier = try verifier(.init(maximumTokenAge: 600))
        #expect(verifier.verify(token: key.makeToken(issuedAt: now - 601), nowSeconds: now) == .failure(.expired))
    }

    @Test("iat in the future within the skew is accepted, beyond it is refused with the configured reason")
    func future() throws {
        let verifier = try verifier()
        #expect(verifier.verify(token: key.makeToken(issuedAt: now + 60), nowSeconds: now).isSuccess)
        let result = verifier.verify(token: key.makeToken(issuedAt: now + 61), nowSeconds: now)
        #expect(result == .failure(.issuedInFuture))
        #expect(result.failureReason == .invalidProviderToken)

        let expiring = try self.verifier(.init(allowedClockSkew: 5, futureTokenReason: .expiredProviderToken))
        let other = expiring.verify(token: key.makeToken(issuedAt: now + 6), nowSeconds: now)
        #expect(other == .failure(.issuedInFuture))
        #expect(other.failureReason == .expiredProviderToken)
    }

    @Test("the second verification of a token is a cache hit")
    func cacheHit() throws {
        let verifier = try verifier()
        let token = key.makeToken(issuedAt: now)
        #expect(verifier.verify(token: token, nowSeconds: now).isSuccess)
        #expect(verifier.statistics.signatureVerifications == 1)
        #expect(verifier.statistics.cacheHits == 0)
        #expect(verifier.verify(authorization: "Bearer  \(token)", nowSeconds: now + 1).isSuccess)
        #expect(verifier.statistics.signatureVerifications == 1)
        #expect(verifier.statistics.cacheHits == 1)
        #expect(verifier.statistics.cachedTokens == 1)
    }

    @Test("expiry still applies to a cached token")
    func cachedExpiry() throws {
        let verifier = try verifier()
        let token = key.makeToken(issuedAt: now)
        #expect(verifier.verify(token: token, nowSeconds: now).isSuccess)
        let later = verifier.verify(token: token, nowSeconds: now + 3601)
        #expect(later == .failure(.expired))
        #expect(verifier.statistics.cacheHits == 1)
        #expect(verifier.statistics.signatureVerifications == 1)
    }

    @Test("an expired token is verified once, then refused from the cache")
    func expiredCached() throws {
        let verifier = try verifier()
        let token = key.makeToken(issuedAt: now - 7200)
        #expect(verifier.verify(token: token, nowSeconds: now) == .failure(.expired))
        #expect(verifier.verify(token: token, nowSeconds: now) == .failure(.expired))
        #expect(verifier.statistics.signatureVerifications == 1)
    }

    @Test("failed tokens are not cached")
    func failuresNotCached() throws {
        let verifier = try verifier()
        let impostor = try PrivateSigningKey.generate(teamID: key.teamID, keyID: key.keyID)
        let token = impostor.makeToken(issuedAt: now)
        _ = verifier.verify(token: token, nowSeconds: now)
        _ = verifier.verify(token: token, nowSeconds: now)
        #expect(verifier.statistics.signatureVerifications == 2)
        #expect(verifier.statistics.cachedTokens == 0)
    }

    @Test("the cache is bounded")
    func bounded() throws {
        let verifier = try verifier(.init(cacheCapacity: 8))
        for offset in 0..<50 {
            #expect(verifier.verify(token: key.makeToken(issuedAt: now - Int64(offset)), nowSeconds: now).isSuccess)
        }
        #expect(verifier.statistics.cachedTokens <= 8)
        #expect(verifier.statistics.cachedTokens >= 4)
    }

    @Test("a token in use survives eviction")
    func hotTokenSurvives() throws {
        let verifier = try verifier(.init(cacheCapacity: 4))
        let hot = key.makeToken(issuedAt: now)
        _ = verifier.verify(token: hot, nowSeconds: now)
        for offset in 1...20 {
            _ = verifier.verify(token: key.makeToken(issuedAt: now - Int64(offset)), nowSeconds: now)
            _ = verifier.verify(token: hot, nowSeconds: now)
        }
        #expect(verifier.statistics.signatureVerifications == 21)
    }

    @Test("removing a key refuses its cached tokens")
    func revocation() throws {
        let verifier = try verifier()
        let token = key.makeToken(issuedAt: now)
        #expect(verifier.verify(token: token, nowSeconds: now).isSuccess)
        #expect(verifier.removeKey(id: key.keyID) != nil)
        #expect(verifier.verify(token: token, nowSeconds: now) == .failure(.unknownKey))
        #expect(verifier.statistics.cachedTokens == 0)
    }

    @Test("registering a replacement key forgets tokens of the old one")
    func replacement() throws {
        let verifier = try verifier()
        let token = key.makeToken(issuedAt: now)
        #expect(verifier.verify(token: token, nowSeconds: now).isSuccess)
        let rotated = try PrivateSigningKey.generate(teamID: key.teamID, keyID: key.keyID)
        verifier.register(try rotated.record())
        #expect(verifier.verify(token: token, nowSeconds: now) == .failure(.badSignature))
        #expect(verifier.verify(token: rotated.makeToken(issuedAt: now), nowSeconds: now).isSuccess)
    }

    @Test("verification from many tasks at once agrees")
    func concurrent() async throws {
        let verifier = try verifier()
        let tokens = (0..<8).map { key.makeToken(issuedAt: now - Int64($0)) }
        let clock = now
        let successes = await withTaskGroup(of: Int.self) { group in
            for index in 0..<64 {
                let token = tokens[index % tokens.count]
                group.addTask { verifier.verify(token: token, nowSeconds: clock).isSuccess ? 1 : 0 }
            }
            return await group.reduce(0, +)
        }
        #expect(successes == 64)
        #expect(verifier.statistics.cachedTokens == 8)
    }
}

extension Result where Failure == ProviderTokenError {
    var failureReason: APNSReason? {
        if case .failure(let error) = self { return error.reason }
        return nil
    }

    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
