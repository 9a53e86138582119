import HeraldAuth
import HeraldTestTiers
import Testing

@testable import HeraldProviderClient

@Suite("SignedTokenCache: when a provider token is signed again (spec §A.7)", .tier(.unit))
struct SignedTokenCacheTests {
    let key: PrivateSigningKey
    let start: Int64 = 1_700_000_000

    init() throws {
        key = try PrivateSigningKey.generate(teamID: "TEAM123456", keyID: "KEY1234567")
    }

    @Test("one token is reused until it is 50 minutes old, then replaced")
    func refreshesAtFiftyMinutes() throws {
        var cache = SignedTokenCache(key: key, refreshAge: 50 * 60)
        let first = cache.authorization(now: start)
        #expect(first.hasPrefix("bearer "))
        #expect(cache.authorization(now: start + 49 * 60 + 59) == first)
        let second = cache.authorization(now: start + 50 * 60)
        #expect(second != first)
        #expect(cache.issuedAt == start + 50 * 60)
    }

    @Test("after ExpiredProviderToken the token is replaced, but not within 20 minutes of the last one")
    func renewalWaitsTwentyMinutes() {
        var cache = SignedTokenCache(key: key, refreshAge: 50 * 60)
        let first = cache.authorization(now: start)
        cache.tokenExpired(header: first)
        #expect(cache.authorization(now: start + 19 * 60) == first)
        let renewed = cache.authorization(now: start + 20 * 60)
        #expect(renewed != first)
        // A late answer about the old token changes nothing.
        cache.tokenExpired(header: first)
        #expect(cache.authorization(now: start + 45 * 60) == renewed)
    }

    @Test("a clock that steps back keeps the token")
    func clockStepsBack() {
        var cache = SignedTokenCache(key: key, refreshAge: 50 * 60)
        let first = cache.authorization(now: start)
        #expect(cache.authorization(now: start - 3600) == first)
    }
}
