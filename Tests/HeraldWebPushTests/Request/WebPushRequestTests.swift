import HeraldTestTiers
import HeraldWebPush
import Testing

/// The push service's request rules (RFC 8030 §5) and Herald's choices where Apple is silent (docs/web-push.md).
@Suite("Web push request rules", .tier(.unit))
struct WebPushRequestTests {
    static let subscription = WebPushRequest.Subscription(applicationServerKey: VAPIDFixtures.key)

    /// A request with a valid VAPID header, a 200-byte aes128gcm body and `TTL: 3600`, with `changes` applied
    /// (a `nil` value removes the header).
    static func request(_ changes: [String: String?] = [:], bodyLength: Int = 200) -> WebPushRequest {
        var headers: [String: String] = ["Authorization": VAPIDFixtures.authorization(), "Content-Encoding": "aes128gcm", "TTL": "3600"]
        for (name, value) in changes { headers[name] = value }
        return WebPushRequest(
            headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            bodyLength: bodyLength,
            origin: VAPIDFixtures.origin
        )
    }

    static func evaluate(
        _ request: WebPushRequest,
        subscription: WebPushRequest.Subscription? = subscription,
        policy: WebPushPolicy = WebPushPolicy()
    ) -> Result<WebPushRequest.Accepted, WebPushRefusal> {
        request.evaluate(subscription: subscription, policy: policy, nowSeconds: VAPIDFixtures.now)
    }

    @Test("a valid request is accepted with its TTL, the default urgency, no topic, the verified subject and aes128gcm")
    func accepted() throws {
        let accepted = try Self.evaluate(Self.request()).get()
        #expect(accepted.ttl == WebPushTTL(seconds: 3600))
        #expect(accepted.requestedTTL == WebPushTTL(seconds: 3600))
        #expect(accepted.urgency == .normal)
        #expect(accepted.topic == nil)
        #expect(accepted.vapid.subject == "mailto:ops@example.com")
        #expect(accepted.contentEncoding == .aes128gcm)
        #expect(accepted.bodyLength == 200)
        #expect(accepted.delivery == .deliver)
        #expect(accepted.notes.isEmpty)
    }

    @Test("header names are read in any case")
    func headerCase() throws {
        let request = WebPushRequest(
            headers: [
                ("AUTHORIZATION", VAPIDFixtures.authorization()), ("content-encoding", "AES128GCM"), ("ttl", "60"), ("URGENCY", "High"),
                ("Topic", "scores"),
            ],
            bodyLength: 100,
            origin: VAPIDFixtures.origin
        )
        let accepted = try Self.evaluate(request).get()
        #expect(accepted.ttl.seconds == 60)
        #expect(accepted.urgency == .high)
        #expect(accepted.topic?.value == "scores")
    }

    @Test("a header the push service reads, sent twice, is 400 DuplicateHeaders")
    func duplicate() {
        var request = Self.request()
        request.headers.append((name: "ttl", value: "60"))
        let refusal = Self.evaluate(request).failure
        #expect(refusal?.rule == .duplicateHeader)
        #expect(refusal?.status == 400)
        #expect(refusal?.reason.rawValue == "DuplicateHeaders")
        #expect(refusal?.explanation == "the ttl header is sent twice")
        var other = Self.request()
        other.headers.append((name: "X-Trace", value: "a"))
        other.headers.append((name: "x-trace", value: "b"))
        #expect(Self.evaluate(other).failure == nil)
    }

    @Test("the subscription: unknown is 404 BadPath, expired is 410 Unregistered, before VAPID is read")
    func subscriptionStates() {
        let unsigned = Self.request(["Authorization": nil])
        let unknown = Self.evaluate(unsigned, subscription: nil).failure
        #expect(unknown?.rule == .unknownSubscription)
        #expect(unknown?.status == 404)
        #expect(unknown?.reason.rawValue == "BadPath")
        let expired = Self.evaluate(unsigned, subscription: .init(applicationServerKey: VAPIDFixtures.key, state: .expired)).failure
        #expect(expired?.rule == .expiredSubscription)
        #expect(expired?.status == 410)
        #expect(expired?.reason.rawValue == "Unregistered")
    }

    @Test("a removed permission is answered as sent and dropped by default; 410 Unregistered when the policy is honest")
    func removedPermission() throws {
        let removed = WebPushRequest.Subscription(applicationServerKey: VAPIDFixtures.key, state: .permissionRemoved)
        let accepted = try Self.evaluate(Self.request(), subscription: removed).get()
        #expect(accepted.delivery == .dropAnsweredAsSent(explanation: "the user removed the web app's permission: answered as sent, not delivered"))
        let refusal = Self.evaluate(Self.request(), subscription: removed, policy: WebPushPolicy(removedPermission: .unregistered)).failure
        #expect(refusal?.rule == .permissionRemoved)
        #expect(refusal?.status == 410)
        #expect(refusal?.subject == "mailto:ops@example.com")
        // VAPID still applies: a bad sender learns nothing about the subscription.
        let unsigned = Self.evaluate(Self.request(["Authorization": nil]), subscription: removed).failure
        #expect(unsigned?.rule == .vapidMissing)
    }

    @Test("VAPID's refusal is the request's: no Authorization is 403 BadJwtToken")
    func vapid() {
        let refusal = Self.evaluate(Self.request(["Authorization": nil])).failure
        #expect(refusal?.status == 403)
        #expect(refusal?.reason == .badJwtToken)
    }

    @Test("the body: 4096 bytes pass, 4097 are 413 PayloadTooLarge naming the subject")
    func bodyLength() throws {
        #expect(try Self.evaluate(Self.request(bodyLength: 4096)).get().bodyLength == 4096)
        let refusal = Self.evaluate(Self.request(bodyLength: 4097)).failure
        #expect(refusal?.rule == .bodyTooLarge)
        #expect(refusal?.status == 413)
        #expect(refusal?.reason.rawValue == "PayloadTooLarge")
        #expect(refusal?.explanation == "the body is 4097 bytes, over the 4096-byte limit")
        #expect(refusal?.subject == "mailto:ops@example.com")
    }

    @Test("no body and no Content-Encoding is an empty push")
    func emptyPush() throws {
        let accepted = try Self.evaluate(Self.request(["Content-Encoding": nil], bodyLength: 0)).get()
        #expect(accepted.contentEncoding == nil)
        #expect(accepted.bodyLength == 0)
    }

    @Test(
        "Content-Encoding: missing with a body, unknown, aesgcm by default, or with no body, is refused",
        arguments: [
            ("", 200, WebPushRefusal.Rule.missingContentEncoding, 415, "a 200-byte body without Content-Encoding (web push bodies are aes128gcm)"),
            ("gzip", 200, .unsupportedContentEncoding, 415, "Content-Encoding \"gzip\" is not aes128gcm"),
            ("aesgcm", 200, .legacyContentEncoding, 415, "Content-Encoding aesgcm is the draft coding RFC 8291 replaced; encrypt with aes128gcm"),
            ("aes128gcm", 0, .emptyEncodedBody, 400, "Content-Encoding aes128gcm with an empty body"),
        ]
    )
    func contentEncoding(value: String, bodyLength: Int, rule: WebPushRefusal.Rule, status: Int, explanation: String) {
        let refusal = Self.evaluate(Self.request(["Content-Encoding": value.isEmpty ? nil : value], bodyLength: bodyLength)).failure
        #expect(refusal?.rule == rule)
        #expect(refusal?.status == status)
        #expect(refusal?.explanation == explanation)
    }

    @Test("aesgcm is accepted when the policy takes it")
    func aesgcmAccepted() throws {
        let accepted = try Self.evaluate(Self.request(["Content-Encoding": "aesgcm"]), policy: WebPushPolicy(legacyContentEncoding: .accept)).get()
        #expect(accepted.contentEncoding == .aesgcm)
    }

    @Test("a missing TTL keeps the message 30 days by default, noted; refused when the policy requires a TTL")
    func missingTTL() throws {
        let accepted = try Self.evaluate(Self.request(["TTL": nil])).get()
        #expect(accepted.ttl == .thirtyDays)
        #expect(accepted.requestedTTL == nil)
        #expect(accepted.notes == ["no TTL header: kept 2592000 s"])
        let refusal = Self.evaluate(Self.request(["TTL": nil]), policy: WebPushPolicy(missingTTL: nil)).failure
        #expect(refusal?.rule == .missingTTL)
        #expect(refusal?.status == 400)
        #expect(refusal?.reason.rawValue == "BadExpirationDate")
    }

    @Test("TTL 0 is now or never; a TTL over 30 days is cut to 30 days, noted")
    func ttlValues() throws {
        #expect(try Self.evaluate(Self.request(["TTL": "0"])).get().ttl.isNowOrNever)
        let long = try Self.evaluate(Self.request(["TTL": "99999999999999999999"])).get()
        #expect(long.ttl == .thirtyDays)
        #expect(long.requestedTTL == WebPushTTL(seconds: .max))
        #expect(long.notes == ["TTL 9223372036854775807 s cut to the 2592000 s the push service keeps a message"])
        #expect(try Self.evaluate(Self.request(["TTL": " 2592000 "])).get().notes.isEmpty)
    }

    @Test(
        "a TTL that is not a non-negative whole number is 400 BadExpirationDate",
        arguments: ["-1", "1.5", "", "ten", "0x10", "+5", "1 0", "123456789012345678901"]
    )
    func badTTL(value: String) {
        let refusal = Self.evaluate(Self.request(["TTL": value])).failure
        #expect(refusal?.rule == .badTTL)
        #expect(refusal?.status == 400)
        #expect(refusal?.reason.rawValue == "BadExpirationDate")
    }

    @Test("Urgency: the four values in any case; anything else is 400 BadPriority")
    func urgency() throws {
        for (value, urgency) in [("very-low", WebPushUrgency.veryLow), ("low", .low), ("normal", .normal), ("HIGH", .high), (" high ", .high)] {
            #expect(try Self.evaluate(Self.request(["Urgency": value])).get().urgency == urgency)
        }
        for value in ["urgent", "", "very low", "10", "very-low-x"] {
            let refusal = Self.evaluate(Self.request(["Urgency": value])).failure
            #expect(refusal?.rule == .badUrgency)
            #expect(refusal?.status == 400)
            #expect(refusal?.reason.rawValue == "BadPriority")
        }
        #expect(WebPushUrgency.veryLow < .high)
    }

    @Test("Topic: up to 32 URL-safe base64 characters; anything else is 400 BadCollapseId")
    func topic() throws {
        #expect(try Self.evaluate(Self.request(["Topic": "game-4_score"])).get().topic?.value == "game-4_score")
        let refusal = Self.evaluate(Self.request(["Topic": String(repeating: "a", count: 33)])).failure
        #expect(refusal?.rule == .badTopic)
        #expect(refusal?.status == 400)
        #expect(refusal?.reason.rawValue == "BadCollapseId")
        #expect(Self.evaluate(Self.request(["Topic": "a b"])).failure?.rule == .badTopic)
    }

    @Test("the first rule that fails answers: a duplicate before the subscription, VAPID before the body")
    func order() {
        var duplicate = Self.request(["Authorization": nil])
        duplicate.headers.append((name: "Topic", value: "a"))
        duplicate.headers.append((name: "Topic", value: "b"))
        #expect(Self.evaluate(duplicate, subscription: nil).failure?.rule == .duplicateHeader)
        #expect(Self.evaluate(Self.request(["Authorization": nil], bodyLength: 5000)).failure?.rule == .vapidMissing)
        #expect(Self.evaluate(Self.request(["TTL": "x", "Urgency": "x"], bodyLength: 5000)).failure?.rule == .bodyTooLarge)
        #expect(Self.evaluate(Self.request(["TTL": "x", "Urgency": "x"])).failure?.rule == .badTTL)
    }

    @Test("every reason carries its status")
    func reasons() {
        let table: [(WebPushRefusal.Reason, Int)] = [
            (.badJwtToken, 403), (.payloadTooLarge, 413), (.badExpirationDate, 400), (.badPriority, 400), (.badCollapseId, 400),
            (.duplicateHeaders, 400), (.payloadEmpty, 400), (.unsupportedContentEncoding, 415), (.badPath, 404), (.unregistered, 410),
            (WebPushRefusal.Reason(rawValue: "SomethingNew"), 400),
        ]
        for (reason, status) in table { #expect(reason.status == status) }
    }
}
