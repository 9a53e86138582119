import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// The `sub` claim: Apple's documented rule (a `mailto:` address or a URL) and the publicly reported ones (spec §A.12).
@Suite("VAPID: the sub claim", .tier(.unit))
struct VAPIDSubjectTests {
    @Test(
        "mailto addresses and https URLs with a host pass",
        arguments: [
            "mailto:ops@example.com", "MAILTO:ops@example.com", "mailto:first.last+push@mail.example.co.uk", "mailto:ops@example.com?subject=push",
            "https://example.com", "https://example.com/contact", "https://example.com:8443/", "https://user@example.com", "https://[2001:db8::1]/",
        ]
    )
    func passes(subject: String) {
        #expect(VAPIDSubject.check(subject) == nil)
    }

    @Test(
        "each refused subject answers 403 BadJwtToken and says which rule failed",
        arguments: [
            ("mailto:dev@localhost", WebPushRefusal.Rule.vapidSubjectAtLocalhost, "a mailto at localhost is refused"),
            ("mailto:dev@LOCALHOST", .vapidSubjectAtLocalhost, "a mailto at localhost is refused"),
            ("mailto:dev@app.localhost", .vapidSubjectAtLocalhost, "a mailto at localhost is refused"),
            ("mailto:dev@127.0.0.1", .vapidSubjectAtLocalhost, "a mailto at localhost is refused"),
            ("https://localhost:8443/", .vapidSubjectAtLocalhost, "an https URL at localhost is refused"),
            ("https://[::1]/", .vapidSubjectAtLocalhost, "an https URL at localhost is refused"),
            ("mailto: ops@example.com", .vapidSubjectSpace, "a space is refused"),
            ("mailto:ops@example.com ", .vapidSubjectSpace, "a space is refused"),
            ("mailto:ops@example.com\t", .vapidSubjectSpace, "a space is refused"),
            ("mailto: <ops@example.com>", .vapidSubjectSpace, "a space is refused"),
            ("mailto:<ops@example.com>", .vapidSubjectAngleBrackets, "angle brackets are refused; write mailto:name@domain"),
            ("ops@example.com", .vapidSubjectNotContact, "neither a mailto: address nor an https: URL"),
            ("http://example.com", .vapidSubjectNotContact, "neither a mailto: address nor an https: URL"),
            ("example.com", .vapidSubjectNotContact, "neither a mailto: address nor an https: URL"),
            ("", .vapidSubjectNotContact, "empty; it must be a mailto: address or an https: URL"),
            ("mailto:", .vapidSubjectNotContact, "not a mailto address of the form mailto:name@domain"),
            ("mailto:ops", .vapidSubjectNotContact, "not a mailto address of the form mailto:name@domain"),
            ("mailto:@example.com", .vapidSubjectNotContact, "not a mailto address of the form mailto:name@domain"),
            ("mailto://admin@example.com", .vapidSubjectNotContact, "mailto: is followed by //; a mailto address is mailto:name@domain"),
            ("https:example.com", .vapidSubjectNotContact, "an https: URL needs // and a host"),
            ("https:///contact", .vapidSubjectNotContact, "an https: URL without a host"),
        ]
    )
    func refused(subject: String, rule: WebPushRefusal.Rule, why: String) throws {
        let refusal = try #require(VAPIDSubject.check(subject))
        #expect(refusal.rule == rule)
        #expect(refusal.status == 403)
        #expect(refusal.reason == .badJwtToken)
        #expect(refusal.subject == subject)
        #expect(refusal.explanation == "VAPID sub \(JSONString.quoted(subject)): \(why)")
    }

    @Test("the explanation names the subject in the trace's words")
    func explanationWording() throws {
        let refusal = try #require(VAPIDSubject.check("mailto:dev@localhost"))
        #expect(refusal.explanation == #"VAPID sub "mailto:dev@localhost": a mailto at localhost is refused"#)
        #expect(refusal.description == #"403 BadJwtToken: VAPID sub "mailto:dev@localhost": a mailto at localhost is refused"#)
    }

    @Test("a subject with a line break stays on one line in the explanation")
    func oneLine() throws {
        let refusal = try #require(VAPIDSubject.check("mailto:ops@example.com\nBcc: x@example.com"))
        #expect(!refusal.explanation.contains("\n"))
    }

    @Test("the verifier applies the subject rules to a signed JWT, and names the subject")
    func throughVerifier() {
        let token = VAPIDFixtures.token(claims: VAPIDFixtures.claims(sub: "mailto:dev@localhost"))
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: token)).failure
        #expect(refusal?.rule == .vapidSubjectAtLocalhost)
        #expect(refusal?.subject == "mailto:dev@localhost")
        #expect(refusal?.status == 403)
    }
}
