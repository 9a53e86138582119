import Crypto
import Foundation
import HeraldCore
import HeraldGateway
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldWebPush
import Testing

/// The push service on the provider ports (docs/web-push.md): `POST /push/<subscription>` over h2c, TLS and HTTP/1.1,
/// answered as Apple's web push service answers, durable before `201`.
@Suite("Web push: the push service on the provider ports", .serialized, .tier(.inProcess))
struct WebPushServiceTests {
    /// A subscription registered in the fixture's store, with the keys a web app would hold.
    struct Subscription {
        var token: DeviceToken
        var keys = WebPushSubscriptionKeys()
        var serverKey = P256.Signing.PrivateKey()
        var origin = "https://shop.example"

        func signer(subject: String = "mailto:ops@example.com") -> VAPIDSigner {
            VAPIDSigner(privateKey: serverKey, subject: subject)
        }
    }

    static func subscribe(_ fixture: GatewayFixture, origin: String = "https://shop.example") async throws -> Subscription {
        let device = try await fixture.store.addDevice(name: "mac").device.id
        var subscription = Subscription(token: .random())
        subscription.origin = origin
        let request = ActivityTokenRequest(
            deviceID: device,
            bundleID: origin,
            environment: fixture.environment,
            kind: .webPush,
            token: subscription.token,
            activityType: VAPIDPublicKey(rawRepresentation: subscription.serverKey.publicKey.x963Representation)!.base64URL
        )
        _ = try await fixture.store.registerActivityToken(request, limit: 8)
        return subscription
    }

    /// The headers of a valid push to `endpoint`, with `extra` after them.
    static func headers(
        _ subscription: Subscription,
        endpoint: String,
        fixture: GatewayFixture,
        signer: VAPIDSigner? = nil,
        extra: [(String, String)] = []
    ) throws -> [(String, String)] {
        let signer = signer ?? subscription.signer()
        let authorization = try signer.authorization(endpoint: endpoint, nowSeconds: fixture.clock.nowMilliseconds() / 1000)
        return [("authorization", authorization), ("ttl", "3600"), ("content-encoding", "aes128gcm")] + extra
    }

    static func body(_ subscription: Subscription, _ text: String = #"{"title":"Order shipped"}"#) throws -> [UInt8] {
        try WebPushEncryption.encrypt(Array(text.utf8), p256dh: subscription.keys.p256dh, auth: subscription.keys.auth)
    }

    @Test("a valid push over h2c is 201 with Location, TTL and apns-id, and stored as the subscription's message")
    func acceptedOverH2C() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let body = try Self.body(subscription)
            let response = try await client.send(
                path: path,
                headers: try Self.headers(
                    subscription,
                    endpoint: "http://localhost" + path,
                    fixture: fixture,
                    extra: [("topic", "order-1"), ("urgency", "high")]
                ),
                body: body
            )
            #expect(response.status == 201)
            let apnsID = try #require(response.apnsID)
            #expect(response.headers.first(name: "location") == "http://localhost/message/\(apnsID)")
            #expect(response.headers.first(name: "ttl") == "3600")
            let stored = try #require(try await fixture.store.listNotifications(token: subscription.token, limit: 10).first)
            #expect(stored.notification.id.text == apnsID)
            #expect(stored.notification.pushType == .webPush)
            #expect(stored.notification.collapseID == "order-1")
            #expect(stored.notification.priority.rawValue == 10)
            #expect(stored.notification.bundleID == subscription.origin)
            let message = try #require(WebPushStoredMessage(payload: stored.notification.payload))
            #expect(message.body == body)
            #expect(message.urgency == .high)
            #expect(message.subject == "mailto:ops@example.com")
            // The web app's keys decrypt what was stored: the push service kept the body byte for byte.
            #expect(try subscription.keys.decrypt(message.body) == Array(#"{"title":"Order shipped"}"#.utf8))
            await client.close()
        }
    }

    @Test("over TLS the origin is https://, and over HTTP/1.1 the Host names it")
    func originPerTransport() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let path = "/push/\(subscription.token.hex)"
            let tls = try await fixture.tlsClient()
            let overTLS = try await tls.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: "https://localhost" + path, fixture: fixture),
                body: try Self.body(subscription)
            )
            #expect(overTLS.status == 201)
            // The same token for the cleartext origin is refused over TLS: `aud` names another origin.
            let wrongOrigin = try await tls.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: "http://localhost" + path, fixture: fixture),
                body: try Self.body(subscription)
            )
            #expect(wrongOrigin.status == 403)
            #expect(wrongOrigin.reason == "BadJwtToken")
            #expect(wrongOrigin.headers.first(name: "herald-explanation")?.contains("aud") == true)
            await tls.close()

            let request = HTTP1TestExchange.request(
                path: path,
                headers: try Self.headers(subscription, endpoint: "http://localhost" + path, fixture: fixture),
                body: try Self.body(subscription),
                close: true
            )
            let responses = try await HTTP1TestExchange.exchange(request, port: try await fixture.port(tls: false), group: fixture.clientGroup)
            #expect(responses.first?.status == 201)
            #expect(responses.first?.header("location")?.hasPrefix("http://localhost/message/") == true)
            #expect(try await fixture.store.listNotifications(token: subscription.token, limit: 10).count == 2)
        }
    }

    @Test(
        "Apple's refusals: each with its status, reason and explanation, and nothing stored",
        arguments: [
            ("mailto:dev@localhost", 403, "BadJwtToken", "localhost"),
            ("mailto: ops@example.com", 403, "BadJwtToken", "space"),
            ("ops@example.com", 403, "BadJwtToken", "neither a mailto"),
        ]
    )
    func subjectRefusals(subject: String, status: Int, reason: String, explained: String) async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let response = try await client.send(
                path: path,
                headers: try Self.headers(
                    subscription,
                    endpoint: "http://localhost" + path,
                    fixture: fixture,
                    signer: subscription.signer(subject: subject)
                ),
                body: try Self.body(subscription)
            )
            #expect(response.status == status)
            #expect(response.reason == reason)
            #expect(response.apnsID != nil)
            let explanation = try #require(response.headers.first(name: "herald-explanation"))
            #expect(explanation.contains(explained))
            #expect(explanation.contains("VAPID sub"))
            #expect(try await fixture.store.listNotifications(token: subscription.token, limit: 10).isEmpty)
            await client.close()
        }
    }

    @Test("another key is 403; an unknown subscription 404; an unsubscribed one 410; 4097 bytes 413; aesgcm 415")
    func otherRefusals() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let endpoint = "http://localhost" + path
            let other = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
            let otherKey = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture, signer: other),
                body: try Self.body(subscription)
            )
            #expect(otherKey.status == 403)
            #expect(otherKey.reason == "BadJwtToken")
            #expect(otherKey.headers.first(name: "herald-explanation")?.contains("not the key the subscription was made with") == true)

            let unknownPath = "/push/\(DeviceToken.random().hex)"
            let unknown = try await client.send(
                path: unknownPath,
                headers: try Self.headers(subscription, endpoint: "http://localhost" + unknownPath, fixture: fixture),
                body: try Self.body(subscription)
            )
            #expect(unknown.status == 404)
            #expect(unknown.reason == "BadPath")

            let tooLarge = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture),
                body: [UInt8](repeating: 7, count: 4097)
            )
            #expect(tooLarge.status == 413)
            #expect(tooLarge.reason == "PayloadTooLarge")

            let draft = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture).map {
                    $0.0 == "content-encoding" ? ($0.0, "aesgcm") : $0
                },
                body: try Self.body(subscription)
            )
            #expect(draft.status == 415)
            #expect(draft.reason == "UnsupportedContentEncoding")

            let repeated = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture, extra: [("ttl", "60")]),
                body: try Self.body(subscription)
            )
            #expect(repeated.status == 400)
            #expect(repeated.reason == "DuplicateHeaders")
            #expect(try await fixture.store.listNotifications(token: subscription.token, limit: 10).isEmpty)

            _ = try await fixture.store.unregister(subscription.token, atMilliseconds: fixture.clock.nowMilliseconds())
            let gone = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture),
                body: try Self.body(subscription)
            )
            #expect(gone.status == 410)
            #expect(gone.reason == "Unregistered")
            await client.close()
        }
    }

    @Test("TTL 0 is stored as now or never; a TTL over 30 days is cut and the answer says so; urgency low waits")
    func ttlAndUrgency() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let endpoint = "http://localhost" + path
            let nowOrNever = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture).map { $0.0 == "ttl" ? ($0.0, "0") : $0 },
                body: try Self.body(subscription)
            )
            #expect(nowOrNever.status == 201)
            #expect(nowOrNever.headers.first(name: "ttl") == "0")
            let long = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: endpoint, fixture: fixture, extra: [("urgency", "very-low")])
                    .map { $0.0 == "ttl" ? ($0.0, "99999999") : $0 },
                body: try Self.body(subscription)
            )
            #expect(long.headers.first(name: "ttl") == "2592000")
            let stored = try await fixture.store.listNotifications(token: subscription.token, limit: 10)
            let byID = Dictionary(uniqueKeysWithValues: stored.map { ($0.notification.id.text, $0.notification) })
            let nowOrNeverID = try #require(nowOrNever.apnsID)
            let longID = try #require(long.apnsID)
            #expect(byID[nowOrNeverID]?.expiration == 0)
            let kept = try #require(byID[longID])
            #expect(kept.expiration == fixture.clock.nowMilliseconds() / 1000 + 2_592_000)
            #expect(kept.priority.rawValue == 1)
            await client.close()
        }
    }

    @Test("a push with valid VAPID raises an h2c connection's stream limit, as a valid provider token does")
    func streamLimitRaised() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let response = try await client.send(
                path: path,
                headers: try Self.headers(subscription, endpoint: "http://localhost" + path, fixture: fixture),
                body: try Self.body(subscription)
            )
            #expect(response.status == 201)
            try await client.ping()
            #expect(client.receivedMaxConcurrentStreams.last == 1000)
            await client.close()
        }
    }

    @Test("a refusal is kept in the refusal log under its apns-id, with status, reason, explanation and subscription")
    func refusalLogged() async throws {
        let log = WebPushRefusalLog(capacity: 2)
        let fixture = try await GatewayFixture.start(services: { $0.webPushRefusals = log })
        let subscription = try await Self.subscribe(fixture)
        let client = try await fixture.cleartextClient()
        let path = "/push/\(subscription.token.hex)"
        let response = try await client.send(
            path: path,
            headers: try Self.headers(
                subscription,
                endpoint: "http://localhost" + path,
                fixture: fixture,
                signer: subscription.signer(subject: "mailto:dev@localhost")
            ),
            body: try Self.body(subscription)
        )
        let apnsID = try #require(response.apnsID)
        let id = try #require(NotificationID(apnsID))
        let refusal = try #require(log.refusal(apnsID: id))
        let detail = try #require(try JSONSerialization.jsonObject(with: Data(refusal.detailJSON.utf8)) as? [String: Any])
        #expect(detail["status"] as? Int == 403)
        #expect(detail["reason"] as? String == "BadJwtToken")
        #expect((detail["explanation"] as? String)?.contains("mailto:dev@localhost") == true)
        #expect(detail["subscription"] as? String == subscription.token.hex)
        // The log keeps its capacity: two more refusals forget the first.
        for _ in 0..<2 {
            _ = try await client.send(path: "/push/00", headers: [], body: nil)
        }
        #expect(log.count == 2)
        #expect(log.refusal(apnsID: id) == nil)
        await client.close()
        await fixture.stop()
    }

    @Test("a fault rule on a subscription's id answers its endpoint with the rule's error, once, and stores nothing")
    func faultedEndpoint() async throws {
        try await withGateway { fixture in
            let subscription = try await Self.subscribe(fixture)
            let rule = #"{"id": "outage", "match": {"token": "\#(subscription.token.hex)"}, "status": 503, "count": 1}"#
            try fixture.faults.add(FaultRule(json: Array(rule.utf8)))
            let client = try await fixture.cleartextClient()
            let path = "/push/\(subscription.token.hex)"
            let headers = try Self.headers(subscription, endpoint: "http://localhost" + path, fixture: fixture)
            let faulted = try await client.send(path: path, headers: headers, body: try Self.body(subscription))
            #expect(faulted.status == 503)
            #expect(faulted.reason == "ServiceUnavailable")
            #expect(faulted.headers.first(name: "herald-fault-rule") == "outage")
            #expect(try await fixture.store.listNotifications(token: subscription.token, limit: 10).isEmpty)
            let next = try await client.send(path: path, headers: headers, body: try Self.body(subscription))
            #expect(next.status == 201)
            await client.close()
        }
    }

    @Test("an APNs request that repeats a web push header Apple ignores is not refused for it")
    func apnsUnaffected() async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let client = try await fixture.cleartextClient()
            let response = try await client.send(
                path: "/3/device/\(token.hex)",
                headers: fixture.alertHeaders() + [("ttl", "1"), ("ttl", "2")],
                body: GatewayFixture.alertBody
            )
            #expect(response.status == 200)
            await client.close()
        }
    }
}
