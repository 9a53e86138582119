import HeraldTestTiers
import HeraldWebPush
import Testing

/// Credentials a sender reuses are verified once (docs/web-push.md, "VAPID: Apple's rules"): what the cache keeps,
/// what it checks again, and what it never lets through.
@Suite("VAPID: the verified credentials cache", .tier(.unit))
struct VAPIDCredentialCacheTests {
    typealias Fixtures = VAPIDFixtures

    /// One signed header for the whole suite: ECDSA signatures are randomised, so each signing is another text.
    static let authorization = Fixtures.authorization()

    func verify(
        _ cache: VAPIDCredentialCache,
        authorization: String = Self.authorization,
        subscriptionKey: VAPIDPublicKey = Fixtures.key,
        origin: String = Fixtures.origin,
        now: Int64 = Fixtures.now
    ) -> Result<VAPIDIdentity, WebPushRefusal> {
        VAPIDVerifier(cache: cache).verify(
            authorization: authorization,
            cryptoKey: nil,
            subscriptionKey: subscriptionKey,
            origin: origin,
            nowSeconds: now
        )
    }

    @Test("valid credentials are kept and give the same identity again; a refusal is never kept")
    func keepsOnlyWhatPassed() throws {
        let cache = VAPIDCredentialCache()
        let first = try verify(cache).get()
        #expect(cache.count == 1)
        #expect(try verify(cache).get() == first)
        #expect(cache.count == 1)
        let localhost = Fixtures.authorization(token: Fixtures.token(claims: Fixtures.claims(sub: "mailto:dev@localhost")))
        #expect(throws: WebPushRefusal.self) { try verify(cache, authorization: localhost).get() }
        #expect(throws: WebPushRefusal.self) { try verify(cache, authorization: localhost).get() }
        #expect(cache.count == 1)
    }

    @Test("kept credentials still expire: exp is checked against the time on every use")
    func expiryStillChecked() throws {
        let cache = VAPIDCredentialCache()
        _ = try verify(cache).get()
        let later = Fixtures.now + 13 * 3600
        let refusal = try #require(verify(cache, now: later).failureValue)
        #expect(refusal.rule == .vapidExpired)
        #expect(refusal.subject == "mailto:ops@example.com")
    }

    @Test("another subscription key or another origin is verified in full, with its own explanation")
    func otherKeyOrOrigin() throws {
        let cache = VAPIDCredentialCache()
        _ = try verify(cache).get()
        let mismatch = try #require(verify(cache, subscriptionKey: Fixtures.otherKey).failureValue)
        #expect(mismatch.rule == .vapidKeyMismatch)
        let audience = try #require(verify(cache, origin: "https://fcm.googleapis.com").failureValue)
        #expect(audience.rule == .vapidAudience)
    }

    @Test("bounded: past its capacity the oldest half is forgotten")
    func bounded() throws {
        let cache = VAPIDCredentialCache(capacity: 4)
        for offset in 0..<9 {
            let token = Fixtures.token(claims: Fixtures.claims(exp: String(Fixtures.now + 3600 + Int64(offset))))
            _ = try verify(cache, authorization: Fixtures.authorization(token: token)).get()
            #expect(cache.count <= 4)
        }
        #expect(cache.count >= 2)
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
