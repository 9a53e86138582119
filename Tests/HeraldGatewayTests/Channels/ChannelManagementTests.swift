import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@Suite("Channel management over HTTP/2: create, read, list, delete, and every refusal", .serialized, .tier(.inProcess))
struct ChannelManagementTests {
    static let path = "/1/apps/\(GatewayFixture.topic)/channels"
    static let create = Array(#"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#.utf8)

    @Test("201 with apns-channel-id and apns-request-id; GET reads the configuration; all-channels lists it; DELETE 204")
    func lifecycle() async throws {
        let fixture = try await GatewayFixture.start()
        let client = try await fixture.cleartextClient()
        let auth = [("authorization", "bearer \(fixture.jwt())")]
        let requestID = "0f4c2a36-1b2d-4c8e-9a0b-123456789abc"
        let created = try await client.send(path: Self.path, headers: auth + [("apns-request-id", requestID)], body: Self.create)
        #expect(created.status == 201)
        #expect(created.body.isEmpty)
        #expect(created.headers.first(name: "apns-request-id") == requestID)
        #expect(created.apnsID == nil)
        let channelID = try #require(created.headers.first(name: "apns-channel-id"))
        #expect(Data(base64Encoded: channelID)?.count == 16)

        let read = try await client.send(method: "GET", path: Self.path, headers: auth + [("apns-channel-id", channelID)], body: nil)
        #expect(read.status == 200)
        let configuration = try #require(try JSONSerialization.jsonObject(with: Data(read.body)) as? [String: Any])
        #expect(configuration["message-storage-policy"] as? Int == 1)
        #expect(configuration["push-type"] as? String == "LiveActivity")
        #expect(read.headers.first(name: "apns-channel-id") == channelID)
        #expect(NotificationID(read.headers.first(name: "apns-request-id") ?? "") != nil)

        let second = try await client.send(
            path: Self.path,
            headers: auth,
            body: Array(#"{"message-storage-policy": 0, "push-type": "liveactivity"}"#.utf8)
        )
        let secondID = try #require(second.headers.first(name: "apns-channel-id"))
        let all = try await client.send(method: "GET", path: "/1/apps/\(GatewayFixture.topic)/all-channels", headers: auth, body: nil)
        #expect(all.status == 200)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(all.body)) as? [String: Any])
        #expect(Set(listed["channels"] as? [String] ?? []) == [channelID, secondID])

        let deleted = try await client.send(method: "DELETE", path: Self.path, headers: auth + [("apns-channel-id", channelID)], body: nil)
        #expect(deleted.status == 204)
        for method in ["GET", "DELETE"] {
            let gone = try await client.send(method: method, path: Self.path, headers: auth + [("apns-channel-id", channelID)], body: nil)
            #expect(gone.status == 400 && gone.reason == "ChannelNotRegistered", "\(method)")
        }
        let stored = try await fixture.store.channels(bundleID: GatewayFixture.topic, environment: fixture.environment)
        #expect(stored.map(\.id) == [secondID])
        #expect(stored.first?.storagePolicy == 0)
        await client.close()
        await fixture.stop()
    }

    @Test("refusals: each with Apple's reason and apns-request-id, never apns-id")
    func refusals() async throws {
        let fixture = try await GatewayFixture.start()
        let client = try await fixture.cleartextClient()
        let auth = [("authorization", "bearer \(fixture.jwt())")]
        let cases: [(method: String, path: String, headers: [(String, String)], body: [UInt8]?, status: Int, reason: String)] = [
            ("GET", Self.path, auth, nil, 400, "MissingChannelId"),
            ("DELETE", Self.path, auth + [("apns-channel-id", "not base64!")], nil, 400, "BadChannelId"),
            ("POST", Self.path, auth, Array("not json".utf8), 400, "BadRequestPayload"),
            ("POST", Self.path, auth, [], 400, "BadRequestPayload"),
            ("POST", Self.path, auth, Array(#"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#.utf8), 400, "BadRequestParams"),
            ("POST", Self.path, auth, Array(#"{"message-storage-policy": 1, "push-type": "LiveActivity", "x": 1}"#.utf8), 400, "BadRequestParams"),
            ("POST", Self.path, auth, Array(#"{"message-storage-policy": 1}"#.utf8), 400, "MissingPushType"),
            ("POST", Self.path, auth, Array(#"{"message-storage-policy": 1, "push-type": "alert"}"#.utf8), 400, "InvalidPushType"),
            ("POST", Self.path, auth + [("apns-request-id", "nope")], Self.create, 400, "BadRequestParams"),
            ("POST", Self.path, auth + [("apns-topic", "com.example.other")], Self.create, 403, "TopicMismatch"),
            ("PUT", Self.path, auth, Self.create, 405, "MethodNotAllowed"),
            ("POST", "/1/apps/\(GatewayFixture.topic)/all-channels", auth, Self.create, 405, "MethodNotAllowed"),
            // Other paths under /1/apps/ answer as channel management does (docs/broadcast.md), never with apns-id.
            ("POST", "/1/apps/\(GatewayFixture.topic)/other", auth, Self.create, 404, "BadPath"),
            ("GET", "/1/apps/\(GatewayFixture.topic)", auth, nil, 404, "BadPath"),
            ("PUT", "/1/apps/\(GatewayFixture.topic)/channel", auth, nil, 405, "MethodNotAllowed"),
        ]
        for item in cases {
            let answer = try await client.send(method: item.method, path: item.path, headers: item.headers, body: item.body)
            #expect(
                answer.status == item.status && answer.reason == item.reason,
                "\(item.method) \(item.path) \(item.reason): \(answer.status) \(answer.reason ?? "-")"
            )
            #expect(answer.apnsID == nil, "\(item.method) \(item.path) \(item.reason)")
            #expect(NotificationID(answer.headers.first(name: "apns-request-id") ?? "") != nil, "\(item.method) \(item.path) \(item.reason)")
        }
        // The topic of the Live Activity push type names the same app.
        let liveActivityTopic = try await client.send(
            path: Self.path,
            headers: auth + [("apns-topic", "\(GatewayFixture.topic).push-type.liveactivity")],
            body: Self.create
        )
        #expect(liveActivityTopic.status == 201)
        await client.close()
        // Without a provider token.
        let anonymous = try await fixture.cleartextClient()
        let refused = try await anonymous.send(path: Self.path, headers: [], body: Self.create)
        #expect(refused.status == 403 && refused.reason == "MissingProviderToken")
        await anonymous.close()
        await fixture.stop()
    }

    @Test("an app of another team: TopicDisallowed, as for its pushes")
    func otherTeam() async throws {
        let fixture = try await GatewayFixture.start()
        try await fixture.store.addApp(bundleID: GatewayFixture.topic, teamID: "OTHERTEAM1")
        let client = try await fixture.cleartextClient()
        let answer = try await client.send(path: Self.path, headers: [("authorization", "bearer \(fixture.jwt())")], body: Self.create)
        #expect(answer.status == 400 && answer.reason == "TopicDisallowed")
        await client.close()
        await fixture.stop()
    }
}
