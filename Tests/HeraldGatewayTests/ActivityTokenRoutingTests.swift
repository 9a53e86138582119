import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The provider API's answers for each token kind and topic (docs/provider-api.md, "Live Activity tokens").
@Suite("Provider API: liveactivity pushes by token kind", .serialized, .tier(.inProcess))
struct ActivityTokenRoutingTests {
    static let activityTopic = GatewayFixture.topic + ".push-type.liveactivity"
    static let updateBody = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{"status":"ready"}}}"#.utf8)

    /// One provider token per connection: a new one on every request would be `TooManyProviderTokenUpdates`.
    func headers(_ jwt: String, pushType: String, topic: String) -> [(String, String)] {
        [("authorization", "bearer \(jwt)"), ("apns-topic", topic), ("apns-push-type", pushType)]
    }

    @Test("liveactivity to an activity or push-to-start token is 200; to a device token, and alert to an activity token, DeviceTokenNotForTopic")
    func kindsAndTopics() async throws {
        let fixture = try await GatewayFixture.start()
        let tokens = try await fixture.registerTokensOfEachKind()
        let client = try await fixture.cleartextClient()
        let jwt = fixture.jwt()
        let cases: [(DeviceToken, String, String, [UInt8], Int, String?)] = [
            (tokens.activity, "liveactivity", Self.activityTopic, Self.updateBody, 200, nil),
            (tokens.pushToStart, "liveactivity", Self.activityTopic, Self.updateBody, 200, nil),
            (tokens.device, "liveactivity", Self.activityTopic, Self.updateBody, 400, "DeviceTokenNotForTopic"),
            (tokens.activity, "alert", GatewayFixture.topic, GatewayFixture.alertBody, 400, "DeviceTokenNotForTopic"),
            (tokens.pushToStart, "alert", GatewayFixture.topic, GatewayFixture.alertBody, 400, "DeviceTokenNotForTopic"),
            (tokens.activity, "liveactivity", GatewayFixture.topic, Self.updateBody, 400, "InvalidPushType"),
            (tokens.activity, "liveactivity", "com.example.other.push-type.liveactivity", Self.updateBody, 400, "DeviceTokenNotForTopic"),
            (tokens.device, "alert", GatewayFixture.topic, GatewayFixture.alertBody, 200, nil),
        ]
        for (token, pushType, topic, body, status, reason) in cases {
            let response = try await client.send(
                path: "/3/device/\(token.hex)",
                headers: headers(jwt, pushType: pushType, topic: topic),
                body: body
            )
            #expect(response.status == status, "\(pushType) \(topic) to \(token == tokens.device ? "device" : "activity") token")
            #expect(response.reason == reason)
        }
        let stored = try await fixture.store.listNotifications(token: tokens.activity, limit: 10)
        #expect(stored.map(\.notification.pushType) == [.liveactivity])
        await client.close()
        await fixture.stop()
    }

    @Test("a retired activity token answers 410 Unregistered with the time it was retired")
    func retiredToken() async throws {
        let fixture = try await GatewayFixture.start()
        let tokens = try await fixture.registerTokensOfEachKind()
        let retiredAt = fixture.clock.nowMilliseconds() + 1000
        try await fixture.store.unregister(tokens.activity, atMilliseconds: retiredAt)
        let client = try await fixture.cleartextClient()
        let response = try await client.send(
            path: "/3/device/\(tokens.activity.hex)",
            headers: headers(fixture.jwt(), pushType: "liveactivity", topic: Self.activityTopic),
            body: Self.updateBody
        )
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect(response.timestamp == retiredAt)
        await client.close()
        await fixture.stop()
    }
}
