import Foundation
import HeraldCore
import HeraldGateway
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

@Suite("Broadcast requests over HTTP/2: POST /4/broadcasts/apps/<bundle> and every refusal", .serialized, .tier(.inProcess))
struct BroadcastRequestTests {
    static let path = "/4/broadcasts/apps/\(GatewayFixture.topic)"
    static let update = Array(#"{"aps": {"event": "update", "timestamp": 1700000000, "content-state": {"minutes": 5}}}"#.utf8)

    /// Creates a channel with this storage policy; its id.
    private func channel(_ client: HTTP2TestClient, auth: [(String, String)], policy: Int) async throws -> String {
        let created = try await client.send(
            path: "/1/apps/\(GatewayFixture.topic)/channels",
            headers: auth,
            body: Array(#"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#.utf8)
        )
        return try #require(created.headers.first(name: "apns-channel-id"))
    }

    @Test("200 with apns-request-id (the request's, or a new one) and apns-unique-id in the sandbox, never apns-id")
    func accepted() async throws {
        let fixture = try await GatewayFixture.start()
        let client = try await fixture.cleartextClient()
        let auth = [("authorization", "bearer \(fixture.jwt())")]
        let stored = try await channel(client, auth: auth, policy: 1)
        let noStorage = try await channel(client, auth: auth, policy: 0)
        let requestID = "0f4c2a36-1b2d-4c8e-9a0b-123456789abc"
        let headers: [(String, String)] = [("apns-push-type", "liveactivity"), ("apns-priority", "10")]
        let first = try await client.send(
            path: Self.path,
            headers: auth + headers + [("apns-channel-id", stored), ("apns-expiration", "1900000000"), ("apns-request-id", requestID)],
            body: Self.update
        )
        #expect(first.status == 200, "\(first.reason ?? "-")")
        #expect(first.body.isEmpty)
        #expect(first.headers.first(name: "apns-request-id") == requestID)
        #expect(first.apnsID == nil)
        #expect(NotificationID(first.uniqueID ?? "") != nil)
        let end = Array(#"{"aps": {"event": "end", "timestamp": 1700000001, "dismissal-date": 1700000100}}"#.utf8)
        let second = try await client.send(
            path: Self.path,
            headers: auth + headers + [("apns-channel-id", noStorage), ("apns-expiration", "0")],
            body: end
        )
        #expect(second.status == 200, "\(second.reason ?? "-")")
        #expect(NotificationID(second.headers.first(name: "apns-request-id") ?? "") != nil)
        await client.close()
        await fixture.stop()
    }

    @Test("an accepted broadcast goes to the hub; storage policy 1 keeps it (until its expiration, at most the limit); 0 and expiration 0 do not")
    func handedOnAndKept() async throws {
        let heard = Mutex<[ChannelMessage]>([])
        let deleted = Mutex<[String]>([])
        let fixture = try await GatewayFixture.start(services: { services in
            services.onBroadcast = { message in heard.withLock { $0.append(message) } }
            services.onChannelDeleted = { id, _, _ in deleted.withLock { $0.append(id) } }
            services.maximumBroadcastStorageSeconds = 3600
        })
        let client = try await fixture.cleartextClient()
        let auth = [("authorization", "bearer \(fixture.jwt())")]
        let stored = try await channel(client, auth: auth, policy: 1)
        let noStorage = try await channel(client, auth: auth, policy: 0)
        let now = fixture.clock.nowMilliseconds()
        func broadcast(_ channel: String, expiration: Int64) async throws -> Int {
            let headers: [(String, String)] = [
                ("apns-push-type", "liveactivity"), ("apns-priority", "5"), ("apns-channel-id", channel), ("apns-expiration", "\(expiration)"),
            ]
            return try await client.send(path: Self.path, headers: auth + headers, body: Self.update).status
        }
        #expect(try await broadcast(stored, expiration: now / 1000 + 7200) == 200)
        var kept = try #require(
            try await fixture.store.channel(id: stored, bundleID: GatewayFixture.topic, environment: fixture.environment)?.keptMessage
        )
        #expect(kept.message.payload == Self.update)
        #expect(kept.message.priority == 5)
        #expect(kept.message.acceptedAtMilliseconds == now)
        // Two hours asked, one hour the limit.
        #expect(kept.untilMilliseconds == now + 3_600_000)
        // The hub hears of it right after the answer is handed to the connection.
        func heardIDs(count: Int) async throws -> [String] {
            try await eventually("the hub hears \(count) broadcasts", within: .seconds(5)) { heard.withLock { $0.count } >= count }
            return heard.withLock { $0.map(\.channelID) }
        }
        #expect(try await heardIDs(count: 1) == [stored])

        #expect(try await broadcast(noStorage, expiration: 0) == 200)
        #expect(try await fixture.store.channel(id: noStorage, bundleID: GatewayFixture.topic, environment: fixture.environment)?.keptMessage == nil)
        #expect(try await heardIDs(count: 2) == [stored, noStorage])

        // Expiration 0 on a storing channel: sent to the connected devices, the kept one forgotten.
        #expect(try await broadcast(stored, expiration: 0) == 200)
        #expect(try await fixture.store.channel(id: stored, bundleID: GatewayFixture.topic, environment: fixture.environment)?.keptMessage == nil)
        #expect(try await broadcast(stored, expiration: now / 1000 + 60) == 200)
        kept = try #require(
            try await fixture.store.channel(id: stored, bundleID: GatewayFixture.topic, environment: fixture.environment)?.keptMessage
        )
        #expect(kept.untilMilliseconds == (now / 1000 + 60) * 1000)
        #expect(try await heardIDs(count: 4).count == 4)

        let removed = try await client.send(
            method: "DELETE",
            path: "/1/apps/\(GatewayFixture.topic)/channels",
            headers: auth + [("apns-channel-id", stored)],
            body: nil
        )
        #expect(removed.status == 204)
        #expect(deleted.withLock { $0 } == [stored])
        // A refused broadcast is not handed on.
        #expect(try await broadcast(stored, expiration: 0) == 400)
        try await expectNothing(for: .milliseconds(50), "a refused broadcast handed to the hub") { heard.withLock { $0.count } != 4 }
        await client.close()
        await fixture.stop()
    }

    @Test("refusals: each with Apple's reason and apns-request-id")
    func refusals() async throws {
        let fixture = try await GatewayFixture.start()
        let client = try await fixture.cleartextClient()
        let auth = [("authorization", "bearer \(fixture.jwt())")]
        let stored = try await channel(client, auth: auth, policy: 1)
        let noStorage = try await channel(client, auth: auth, policy: 0)
        let good: [(String, String)] = [("apns-push-type", "liveactivity"), ("apns-priority", "10"), ("apns-expiration", "0")]
        func without(_ name: String) -> [(String, String)] { good.filter { $0.0 != name } }
        func with(_ name: String, _ value: String) -> [(String, String)] { without(name) + [(name, value)] }
        let unknown = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let start = Array(#"{"aps": {"event": "start", "timestamp": 1, "content-state": {}, "attributes-type": "A", "attributes": {}}}"#.utf8)
        let cases: [(method: String, headers: [(String, String)], body: [UInt8], status: Int, reason: String)] = [
            ("GET", good + [("apns-channel-id", stored)], Self.update, 405, "MethodNotAllowed"),
            ("POST", good, Self.update, 400, "MissingChannelId"),
            ("POST", good + [("apns-channel-id", "not base64!")], Self.update, 400, "BadChannelId"),
            ("POST", good + [("apns-channel-id", unknown)], Self.update, 400, "ChannelNotRegistered"),
            ("POST", without("apns-push-type") + [("apns-channel-id", stored)], Self.update, 400, "MissingPushType"),
            ("POST", with("apns-push-type", "alert") + [("apns-channel-id", stored)], Self.update, 400, "InvalidPushType"),
            ("POST", without("apns-priority") + [("apns-channel-id", stored)], Self.update, 400, "BadPriority"),
            ("POST", with("apns-priority", "1") + [("apns-channel-id", stored)], Self.update, 400, "BadPriority"),
            ("POST", without("apns-expiration") + [("apns-channel-id", stored)], Self.update, 400, "BadExpirationDate"),
            ("POST", with("apns-expiration", "soon") + [("apns-channel-id", stored)], Self.update, 400, "BadExpirationDate"),
            ("POST", with("apns-expiration", "1900000000") + [("apns-channel-id", noStorage)], Self.update, 400, "BadExpirationDate"),
            ("POST", good + [("apns-channel-id", stored)], [], 400, "PayloadEmpty"),
            ("POST", good + [("apns-channel-id", stored)], Array("not json".utf8), 400, "BadRequestPayload"),
            ("POST", good + [("apns-channel-id", stored)], start, 400, "BadRequestPayload"),
            ("POST", good + [("apns-channel-id", stored)], Array(#"{"aps": {"event": "update", "timestamp": 1}}"#.utf8), 400, "BadRequestPayload"),
            ("POST", good + [("apns-channel-id", stored)], Array(#"{"aps": {"event": "end"}}"#.utf8), 400, "BadRequestPayload"),
            (
                "POST", good + [("apns-channel-id", stored)],
                Array(#"{"aps": {"event": "update", "timestamp": 1, "content-state": {"x": "\#(String(repeating: "a", count: 5_100))"}}}"#.utf8),
                413, "PayloadTooLarge"
            ),
            ("POST", good + [("apns-channel-id", stored), ("apns-request-id", "nope")], Self.update, 400, "BadRequestParams"),
            ("POST", good + [("apns-channel-id", stored), ("apns-topic", "com.example.other")], Self.update, 403, "TopicMismatch"),
        ]
        for item in cases {
            let answer = try await client.send(method: item.method, path: Self.path, headers: auth + item.headers, body: item.body)
            #expect(
                answer.status == item.status && answer.reason == item.reason,
                "\(item.reason): \(answer.status) \(answer.reason ?? "-")"
            )
            #expect(answer.apnsID == nil, "\(item.reason)")
            #expect(NotificationID(answer.headers.first(name: "apns-request-id") ?? "") != nil, "\(item.reason)")
        }
        await client.close()
        let anonymous = try await fixture.cleartextClient()
        let refused = try await anonymous.send(path: Self.path, headers: good + [("apns-channel-id", stored)], body: Self.update)
        #expect(refused.status == 403 && refused.reason == "MissingProviderToken")
        await anonymous.close()
        await fixture.stop()
    }
}
