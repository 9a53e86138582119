import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import NIOHTTP2
import Testing

/// Every status and reason of spec §A.5 that applies to `/3/device`, sent over a real HTTP/2 connection.
@Suite("Provider API reasons over HTTP/2", .serialized, .tier(.inProcess))
struct ReasonTableTests {
    @Test("a valid alert is accepted with 200, apns-id and apns-unique-id, and stored")
    func accepted() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders() + [("apns-id", id), ("apns-collapse-id", "c1"), ("apns-expiration", "0")],
            body: GatewayFixture.alertBody
        )
        #expect(response.status == 200)
        #expect(response.apnsID == id)
        #expect(response.uniqueID != nil)
        #expect(response.body.isEmpty)
        let stored = try await fixture.store.listNotifications(token: token, limit: 10)
        #expect(stored.count == 1)
        #expect(stored.first?.notification.collapseID == "c1")
        #expect(stored.first?.notification.expiration == 0)
        #expect(stored.first?.notification.payload == GatewayFixture.alertBody)
        let trace = try await fixture.store.trace(NotificationID(id)!)
        #expect(trace.map(\.kind.rawValue).contains("accepted"))
        await client.close()
        await fixture.stop()
    }

    @Test("a response without a provided apns-id carries a new lowercase one")
    func generatedID() async throws {
        let fixture = try await GatewayFixture.start()
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/00", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        let id = try #require(response.apnsID)
        #expect(NotificationID(id) != nil)
        #expect(id == id.lowercased())
        // Time-ordered (version 7) by default; the sandbox's apns-unique-id stays random (version 4).
        #expect(Array(id)[14] == "7")
        #expect(Array(try #require(response.uniqueID))[14] == "4")
        await client.close()
        await fixture.stop()
    }

    @Test("generatedIDFormat .random makes version-4 apns-id values for requests without one")
    func generatedRandomID() async throws {
        let fixture = try await GatewayFixture.start { $0.generatedIDFormat = .random }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.status == 200)
        let id = try #require(response.apnsID)
        #expect(Array(id)[14] == "4")
        let stored = try await fixture.store.listNotifications(token: token, limit: 10)
        #expect(stored.map(\.notification.id.text) == [id])
        await client.close()
        await fixture.stop()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var reason: String
        var method = "POST"
        var path: (@Sendable (DeviceToken) -> String)? = nil
        var headers: (@Sendable (GatewayFixture) -> [(String, String)])? = nil
        var extraHeaders: [(String, String)] = []
        var body: [UInt8]? = GatewayFixture.alertBody
        var testDescription: String { "\(name) → \(status) \(reason)" }
    }

    static let cases: [Case] = [
        Case(name: "GET", status: 405, reason: "MethodNotAllowed", method: "GET"),
        Case(name: "other path", status: 404, reason: "BadPath", path: { "/3/devices/\($0.hex)" }),
        Case(name: "no token in path", status: 400, reason: "MissingDeviceToken", path: { _ in "/3/device/" }),
        Case(name: "duplicate apns-topic", status: 400, reason: "DuplicateHeaders", extraHeaders: [("apns-topic", "com.example.app")]),
        Case(name: "no authorization", status: 403, reason: "MissingProviderToken", headers: { _ in [("apns-topic", GatewayFixture.topic)] }),
        Case(
            name: "garbage token",
            status: 403,
            reason: "InvalidProviderToken",
            headers: { _ in [("authorization", "bearer not.a.jwt"), ("apns-topic", GatewayFixture.topic)] }
        ),
        Case(
            name: "old token",
            status: 403,
            reason: "ExpiredProviderToken",
            headers: { $0.alertHeaders(jwt: $0.jwt(issuedAt: $0.clock.nowSeconds() - 3601)) }
        ),
        Case(name: "bad apns-id", status: 400, reason: "BadMessageId", extraHeaders: [("apns-id", "nope")]),
        Case(
            name: "unknown push type",
            status: 400,
            reason: "InvalidPushType",
            headers: { f in
                [("authorization", "bearer \(f.jwt())"), ("apns-topic", GatewayFixture.topic), ("apns-push-type", "banner")]
            }
        ),
        Case(name: "priority 7", status: 400, reason: "BadPriority", extraHeaders: [("apns-priority", "7")]),
        Case(
            name: "background at priority 10",
            status: 400,
            reason: "BadPriority",
            headers: { f in
                [
                    ("authorization", "bearer \(f.jwt())"), ("apns-topic", GatewayFixture.topic), ("apns-push-type", "background"),
                    ("apns-priority", "10"),
                ]
            }
        ),
        Case(name: "expiration not a number", status: 400, reason: "BadExpirationDate", extraHeaders: [("apns-expiration", "tomorrow")]),
        Case(
            name: "collapse id of 65 bytes",
            status: 400,
            reason: "BadCollapseId",
            extraHeaders: [("apns-collapse-id", String(repeating: "x", count: 65))]
        ),
        Case(name: "no topic", status: 400, reason: "MissingTopic", headers: { f in [("authorization", "bearer \(f.jwt())")] }),
        Case(
            name: "malformed topic",
            status: 400,
            reason: "BadTopic",
            headers: { f in
                [("authorization", "bearer \(f.jwt())"), ("apns-topic", "com example")]
            }
        ),
        Case(
            name: "voip push to a plain topic",
            status: 400,
            reason: "InvalidPushType",
            headers: { f in
                [("authorization", "bearer \(f.jwt())"), ("apns-topic", GatewayFixture.topic), ("apns-push-type", "voip")]
            }
        ),
        Case(name: "token not hex", status: 400, reason: "BadDeviceToken", path: { _ in "/3/device/xyz" }),
        Case(name: "unknown token", status: 400, reason: "BadDeviceToken", path: { _ in "/3/device/" + String(repeating: "ab", count: 32) }),
        Case(
            name: "token of another app",
            status: 400,
            reason: "DeviceTokenNotForTopic",
            headers: { f in
                f.alertHeaders(topic: "com.example.other")
            }
        ),
        Case(name: "empty body", status: 400, reason: "PayloadEmpty", body: nil),
        Case(
            name: "body over 4096 bytes",
            status: 413,
            reason: "PayloadTooLarge",
            body: Array(("{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 4100) + "\"}}").utf8)
        ),
        Case(name: "body not JSON", status: 400, reason: "PayloadEmpty", body: Array("hello".utf8)),
        Case(
            name: "background push with an alert",
            status: 400,
            reason: "InvalidPushType",
            headers: { f in
                [
                    ("authorization", "bearer \(f.jwt())"), ("apns-topic", GatewayFixture.topic), ("apns-push-type", "background"),
                    ("apns-priority", "5"),
                ]
            }
        ),
    ]

    @Test("each error reason", arguments: cases)
    func reason(_ testCase: Case) async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let response = try await client.send(
            method: testCase.method,
            path: testCase.path?(token) ?? "/3/device/\(token.hex)",
            headers: (testCase.headers?(fixture) ?? fixture.alertHeaders()) + testCase.extraHeaders,
            body: testCase.body
        )
        #expect(response.status == testCase.status)
        #expect(response.reason == testCase.reason)
        #expect(response.apnsID != nil)
        #expect(response.headers.first(name: "content-type") == "application/json")
        await client.close()
        await fixture.stop()
    }

    @Test("an unregistered token gets 410 Unregistered with the time it stopped")
    func unregistered() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        fixture.clock.advance(seconds: 5)
        let at = fixture.clock.nowMilliseconds()
        try await fixture.store.unregister(token, atMilliseconds: at)
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect(response.timestamp == at)
        await client.close()
        await fixture.stop()
    }

    @Test("a token of the other environment is a BadDeviceToken")
    func otherEnvironmentToken() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken(environment: .production)
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.status == 400)
        #expect(response.reason == "BadDeviceToken")
        await client.close()
        await fixture.stop()
    }

    @Test("a key scoped to production is refused by a sandbox gateway")
    func keyEnvironment() async throws {
        let fixture = try await GatewayFixture.start(keyScope: .production)
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.status == 403)
        #expect(response.reason == "BadEnvironmentKeyInToken")
        await client.close()
        await fixture.stop()
    }

    @Test("too many requests to one token with a per-token limit")
    func tooManyRequests() async throws {
        let fixture = try await GatewayFixture.start { $0.perTokenRateLimit = 2 }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        var statuses: [Int] = []
        var reasons: [String?] = []
        let headers = fixture.alertHeaders()
        for _ in 0..<3 {
            let response = try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody)
            statuses.append(response.status)
            reasons.append(response.reason)
        }
        #expect(statuses == [200, 200, 429])
        #expect(reasons.last == "TooManyRequests")
        fixture.clock.advance(seconds: 1)
        let later = try await client.send(path: "/3/device/\(token.hex)", headers: headers, body: GatewayFixture.alertBody)
        #expect(later.status == 200)
        await client.close()
        await fixture.stop()
    }
}
