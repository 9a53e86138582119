import Crypto
import Foundation
import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// Interop: pywebpush (PyPI, unmodified) against Herald's web push protocol layer, before the push service is on the
/// provider ports.
///
/// Each test makes a subscription (``WebPushSubscriptionKeys`` and a VAPID key pair from swift-crypto) whose endpoint
/// is a ``CapturingHTTPServer`` answering with Herald's request rules, runs `Tests/Interop/pywebpush_client.py` as a
/// site's server would, then hands the request pywebpush sent to the protocol layer: VAPID, the request rules, and the
/// user agent's decryption. pywebpush's own view (the status and `reason` it got) is asserted too.
@Suite("Interop: pywebpush against the web push protocol layer", .serialized, .tier(.process))
struct PyWebPushProtocolTests {
    @Test("mailto:ops@example.com: 201; VAPID verifies with aud = the endpoint's origin; TTL, Urgency, Topic as sent; decrypts to the data")
    func acceptedAndDecrypted() async throws {
        let site = try WebPushSite()
        defer { site.remove() }
        let data = #"{"title":"Herald","body":"Café ☕ — order 42 shipped","navigate":"https://example.com/orders/42"}"#
        let answer = try await site.send(
            subject: "mailto:ops@example.com",
            data: ["--data", data],
            ttl: 3600,
            headers: ["Topic: order-42", "Urgency: normal"]
        )
        #expect(answer.status == 201, "\(answer)")
        #expect(answer.location?.hasPrefix("\(site.endpoint.origin)/message/") == true, "\(answer)")

        let request = try site.onlyRequest()
        #expect(request.method == "POST")
        #expect(request.path == site.endpointPath)
        #expect(request.values("content-encoding") == ["aes128gcm"])

        let identity = try VAPIDVerifier().verify(
            authorization: request.values("authorization").first,
            cryptoKey: request.values("crypto-key").first,
            subscriptionKey: site.applicationServerKey,
            origin: site.endpoint.origin,
            nowSeconds: WebPushSite.now
        ).get()
        #expect(identity.scheme == .vapid)
        #expect(identity.subject == "mailto:ops@example.com")
        #expect(identity.audience == site.endpoint.origin)
        #expect(identity.key == site.applicationServerKey)
        // pywebpush signs for 12 hours: inside Apple's 24.
        #expect((Double(WebPushSite.now)...Double(WebPushSite.now + 86_400)).contains(identity.expiration), "exp \(identity.expiration)")

        let accepted = try site.evaluate(request).get()
        #expect(accepted.ttl == WebPushTTL(seconds: 3600))
        #expect(accepted.requestedTTL == WebPushTTL(seconds: 3600))
        #expect(accepted.urgency == .normal)
        #expect(accepted.topic == WebPushTopic("order-42"))
        #expect(accepted.contentEncoding == .aes128gcm)
        #expect(accepted.bodyLength == request.body.count)
        #expect(accepted.delivery == .deliver)

        // The user agent's side: one record (RFC 8291 §4), the keyid a P-256 point, the plaintext byte for byte.
        let layout = try AES128GCMLayout(parsing: request.body, rules: .webPush)
        #expect(layout.recordCount == 1)
        #expect(layout.header.keyID.count == 65 && layout.header.keyID.first == 0x04)
        #expect(layout.header.keyID != site.applicationServerKey.rawRepresentation, "the keyid is pywebpush's one-time key, not the VAPID key")
        #expect(try site.keys.decrypt(request.body) == Array(data.utf8))

        // Another subscription's keys cannot read it.
        #expect(throws: AES128GCMError.authenticationFailed) { try WebPushSubscriptionKeys().decrypt(request.body) }
    }

    @Test("mailto:dev@localhost: 403 BadJwtToken, the explanation names the subject")
    func subjectAtLocalhost() async throws {
        let site = try WebPushSite()
        defer { site.remove() }
        let answer = try await site.send(subject: "mailto:dev@localhost", data: ["--data", "hello"], ttl: 60)
        #expect(answer.status == 403, "\(answer)")
        #expect(answer.reason == "BadJwtToken", "\(answer)")

        let request = try site.onlyRequest()
        let refusal = try #require(site.refusal(request))
        #expect(refusal.rule == .vapidSubjectAtLocalhost, "\(refusal)")
        #expect(refusal.status == 403)
        #expect(refusal.reason == .badJwtToken)
        #expect(refusal.subject == "mailto:dev@localhost")
        #expect(refusal.explanation.contains("mailto:dev@localhost"), "\(refusal.explanation)")
        #expect(!refusal.explanation.contains("\n"))

        // The same message body still decrypts: the refusal is VAPID's, not the encryption's.
        #expect(try site.keys.decrypt(request.body) == Array("hello".utf8))
    }

    @Test("signed with another key than the subscription's: 403 BadJwtToken; with the subscription's k, the signature fails")
    func anotherKey() async throws {
        let site = try WebPushSite()
        defer { site.remove() }
        let other = P256.Signing.PrivateKey()
        let otherPEM = site.directory.appendingPathComponent("other-vapid.pem")
        try other.pemRepresentation.write(to: otherPEM, atomically: true, encoding: .utf8)
        let answer = try await site.send(subject: "mailto:ops@example.com", data: ["--data", "hello"], ttl: 60, vapidKey: otherPEM)
        #expect(answer.status == 403, "\(answer)")
        #expect(answer.reason == "BadJwtToken", "\(answer)")

        let request = try site.onlyRequest()
        let refusal = try #require(site.refusal(request))
        #expect(refusal.rule == .vapidKeyMismatch, "\(refusal)")
        #expect(refusal.reason == .badJwtToken)
        #expect(refusal.subject == "mailto:ops@example.com")

        // A sender that also rewrites k to the subscription's key is caught by the signature.
        let authorization = try #require(request.values("authorization").first)
        let credentials = try VAPIDAuthorization(authorization: authorization)
        #expect(credentials.key.rawRepresentation == Array(other.publicKey.x963Representation))
        let forged = "vapid t=\(credentials.token), k=\(site.applicationServerKey.base64URL)"
        let forgedResult = VAPIDVerifier().verify(
            authorization: forged,
            cryptoKey: nil,
            subscriptionKey: site.applicationServerKey,
            origin: site.endpoint.origin,
            nowSeconds: WebPushSite.now
        )
        guard case .failure(let forgedRefusal) = forgedResult else {
            Issue.record("a JWT signed with another key verified with the subscription's k: \(forgedResult)")
            return
        }
        #expect(forgedRefusal.rule == .vapidBadSignature, "\(forgedRefusal)")
        #expect(forgedRefusal.status == 403)
    }

    @Test("4097 bytes of data: 413 PayloadTooLarge with the body's length; the layer still reads all 4097 bytes back")
    func payloadTooLarge() async throws {
        let site = try WebPushSite()
        defer { site.remove() }
        let answer = try await site.send(subject: "mailto:ops@example.com", data: ["--data-length", "4097"], ttl: 60)
        #expect(answer.status == 413, "\(answer)")
        #expect(answer.reason == "PayloadTooLarge", "\(answer)")

        let request = try site.onlyRequest()
        #expect(request.body.count > 4096)
        let refusal = try #require(site.refusal(request))
        #expect(refusal.rule == .bodyTooLarge, "\(refusal)")
        #expect(refusal.status == 413)
        #expect(refusal.explanation == "the body is \(request.body.count) bytes, over the 4096-byte limit")
        #expect(refusal.subject == "mailto:ops@example.com")

        // A user agent refuses it as well; read as any RFC 8188 body, pywebpush's records are Herald's.
        #expect(throws: AES128GCMError.self) { try site.keys.decrypt(request.body) }
        let plaintext = try site.keys.decrypt(request.body, rules: .rfc8188())
        #expect(plaintext == Array(repeating: UInt8(ascii: "x"), count: 4097))
    }

    @Test("Topic, Urgency: high and TTL: 0 as pywebpush sends them are read as such")
    func topicUrgencyAndZeroTTL() async throws {
        let site = try WebPushSite()
        defer { site.remove() }
        let answer = try await site.send(
            // py-vapid takes an https: subject only as a bare origin (its own check refuses a path).
            subject: "https://example.com",
            data: ["--data", #"{"web_push":8030}"#],
            ttl: 0,
            headers: ["Topic: inbox_Zz-09", "Urgency: high"]
        )
        #expect(answer.status == 201, "\(answer)")

        let request = try site.onlyRequest()
        #expect(request.values("ttl") == ["0"])
        #expect(request.values("urgency") == ["high"])
        #expect(request.values("topic") == ["inbox_Zz-09"])
        let accepted = try site.evaluate(request).get()
        #expect(accepted.ttl == .zero)
        #expect(accepted.ttl.isNowOrNever)
        #expect(accepted.requestedTTL == .zero)
        #expect(accepted.urgency == .high)
        #expect(accepted.topic?.value == "inbox_Zz-09")
        #expect(accepted.vapid.subject == "https://example.com")
        #expect(try site.keys.decrypt(request.body) == Array(#"{"web_push":8030}"#.utf8))
    }
}
