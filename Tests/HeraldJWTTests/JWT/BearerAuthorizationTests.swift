import HeraldTestTiers
import Testing

@testable import HeraldJWT

@Suite("Bearer authorization header", .tier(.unit))
struct BearerAuthorizationTests {
    @Test(
        "reads the token whatever the scheme's case and spacing",
        arguments: ["bearer abc.def.ghi", "Bearer abc.def.ghi", "BEARER abc.def.ghi", "bearer    abc.def.ghi", "  bearer\tabc.def.ghi  "]
    )
    func liberalScheme(value: String) throws {
        #expect(try BearerAuthorization.token(in: value).get() == "abc.def.ghi")
    }

    @Test("no header, an empty one, or a scheme without token is MissingProviderToken", arguments: [nil, "", "   ", "bearer", "bearer   "])
    func missing(value: String?) {
        let result = BearerAuthorization.token(in: value)
        #expect(result == .failure(.missing))
        #expect(ProviderTokenError.missing.reason == .missingProviderToken)
    }

    @Test("another scheme is InvalidProviderToken", arguments: ["basic abc", "abc.def.ghi", "bearerabc.def.ghi", "token abc.def.ghi"])
    func otherScheme(value: String) {
        let result = BearerAuthorization.token(in: value)
        #expect(result == .failure(.malformedAuthorization))
        #expect(ProviderTokenError.malformedAuthorization.reason == .invalidProviderToken)
    }

    @Test("a token with inner spaces or longer than the limit is malformed")
    func malformed() {
        #expect(BearerAuthorization.token(in: "bearer abc def") == .failure(.malformedToken))
        let huge = String(repeating: "a", count: BearerAuthorization.maximumTokenLength + 1)
        #expect(BearerAuthorization.token(in: "bearer \(huge)") == .failure(.malformedToken))
    }
}
