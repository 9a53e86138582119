import Foundation
import HeraldActivityKit
import HeraldCore
import HeraldGateway
import HeraldProviderClient
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

/// Broadcast push end to end (docs/broadcast.md): channels created through the provider API, Live Activities started
/// by push-to-start with `input-push-channel` on simulated devices that subscribe over the device link, broadcasts
/// over HTTP/2 reaching every subscribed device, and the storage policies with a device that was away.
@Suite("Broadcast push end to end: channels, subscriptions, fan-out, storage policies", .serialized, .tier(.inProcess))
struct BroadcastEndToEndTests {
    static let app = "com.example.scores"
    static let topic = app + ".push-type.liveactivity"

    static func manifest(_ name: String) -> DeviceManifest {
        DeviceManifest(
            name: name,
            apps: [
                AppManifest(
                    bundleID: app,
                    activities: [ActivityTypeManifest(name: "MatchAttributes", attributes: ["match"], contentState: ["score"])]
                )
            ]
        )
    }

    /// Creates a channel; its id.
    static func channel(_ client: APNSProviderClient, policy: APNSMessageStoragePolicy) async throws -> String {
        let created = try await client.createChannel(bundleID: app, storagePolicy: policy)
        try #require(created.status == 201, "channel refused: \(String(describing: created.reason))")
        return try #require(created.channelID)
    }

    /// Starts a match activity on `device` that follows `channel`, by push-to-start, and waits for the subscription.
    static func follow(_ channel: String, on device: TestDevice, score: String, at seconds: Int64, client: APNSProviderClient) async throws {
        let pushToStart = try #require(
            try await registeredToken(device),
            "device \(device.name) registered no push-to-start token"
        )
        let payload =
            #"{"aps":{"event":"start","timestamp":\#(seconds),"attributes-type":"MatchAttributes","attributes":{"match":"Final"},"#
            + #""content-state":{"score":"\#(score)"},"alert":{"title":"Final","body":"Kick-off"},"input-push-channel":"\#(channel)"}}"#
        let response = try await client.send(
            APNSRequest(deviceToken: pushToStart, payload: Array(payload.utf8), topic: topic, pushType: .liveactivity)
        )
        try #require(response.status == 200, "push-to-start refused: \(String(describing: response.reason))")
        try await device.expectChannelSubscription(channel, in: app, within: .seconds(20))
    }

    static func registeredToken(_ device: TestDevice) async throws -> String? {
        try await eventually("a push-to-start token", within: .seconds(20)) {
            device.linked.activityTokens.first(where: { $0.kind == .pushToStart })?.token.hex
        }
    }

    static func broadcast(
        _ client: APNSProviderClient,
        channel: String,
        score: String,
        at seconds: Int64,
        expiration: Int64 = 0
    ) async throws -> APNSChannelResponse {
        let payload = #"{"aps":{"event":"update","timestamp":\#(seconds),"content-state":{"score":"\#(score)"}}}"#
        return try await client.broadcast(
            APNSBroadcastRequest(bundleID: app, channelID: channel, payload: Array(payload.utf8), expiration: expiration)
        )
    }

    static func score(_ activity: ActivitySnapshot) -> String? {
        guard case .string(let score)? = TestDevice.contentState(of: activity)?["score"] else { return nil }
        return score
    }

    @Test("one broadcast over HTTP/2 reaches all 100 subscribed devices; the inspection API lists them and the count sent")
    func hundredDevices() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            try await server.withProviderClient(tls: false) { client in
                let channel = try await Self.channel(client, policy: .noMessageStored)
                let now = server.clock.nowMilliseconds() / 1000
                var devices: [TestDevice] = []
                for index in 0..<100 {
                    let device = try await server.addDevice(manifest: Self.manifest("Fan \(index)"))
                    try await Self.follow(channel, on: device, score: "0-0", at: now, client: client)
                    devices.append(device)
                }
                let answer = try await Self.broadcast(client, channel: channel, score: "1-0", at: now + 60)
                #expect(answer.status == 200)
                #expect(NotificationID(answer.requestID ?? "") != nil)
                #expect(NotificationID(answer.uniqueID ?? "") != nil)
                for device in devices {
                    let activity = try await device.expectActivity(in: Self.app, contentState: "score", equals: .string("1-0"), within: .seconds(20))
                    #expect(activity.channelID == channel)
                    #expect(activity.state == .active)
                }

                let listed = try await ConsoleHTTP.get(
                    server.inspectionURL,
                    "channels?id=\(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel)"
                )
                #expect(listed.status == 200)
                let entry = try #require((listed.object?["channels"] as? [[String: Any]])?.first)
                #expect((entry["subscribers"] as? [Any])?.count == 100)
                #expect((entry["recent"] as? [[String: Any]])?.last?["sentTo"] as? Int == 100)
                #expect(entry["kept"] is NSNull)
                #expect(server.server.channels.subscriptionCount == 100)
            }
        }
    }

    @Test(
        "a device away during broadcasts gets the kept one (policy 1) when it is back, never the other (policy 0); an end dismisses and unsubscribes"
    )
    func storagePolicies() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            try await server.withProviderClient(tls: false) { client in
                let kept = try await Self.channel(client, policy: .mostRecentMessageStored)
                let live = try await Self.channel(client, policy: .noMessageStored)
                let now = server.clock.nowMilliseconds() / 1000
                let away = try await server.addDevice(manifest: Self.manifest("Away"))
                let home = try await server.addDevice(manifest: Self.manifest("Home"))
                for device in [away, home] {
                    try await Self.follow(kept, on: device, score: "0-0", at: now, client: client)
                    try await Self.follow(live, on: device, score: "0-0", at: now, client: client)
                }

                // A fault rule takes the first device offline for ten minutes of server time.
                try server.faults.add(
                    FaultRule(
                        json: Array(#"{"id":"away","match":{"token":"\#(try away.token(for: Self.app))"},"deviceOffline":true,"forMs":600000}"#.utf8)
                    )
                )
                let alert = APNSRequest(
                    deviceToken: try away.token(for: Self.app),
                    payload: Array(#"{"aps":{"alert":"Half time"}}"#.utf8),
                    topic: Self.app
                )
                #expect(try await client.send(alert).status == 200)
                try await eventually("the away device's link closed") { !away.linked.isConnected }

                #expect(try await Self.broadcast(client, channel: kept, score: "2-1", at: now + 60, expiration: now + 3600).status == 200)
                #expect(try await Self.broadcast(client, channel: live, score: "2-1", at: now + 60).status == 200)
                // The device at home has both at once.
                for channel in [kept, live] {
                    try await home.expectActivity(in: Self.app, "on \(channel) with 2-1") { $0.channelID == channel && Self.score($0) == "2-1" }
                }

                server.clock.advance(by: .seconds(601))
                try await away.expectActivity(in: Self.app, within: .seconds(20), "on the kept channel with 2-1") {
                    $0.channelID == kept && Self.score($0) == "2-1"
                }
                try await away.expectChannelSubscription(live, in: Self.app, within: .seconds(20))
                // Policy 0 kept nothing: its activity still shows the score from before.
                let missed = try #require(await away.activities(in: Self.app).first { $0.channelID == live })
                #expect(Self.score(missed) == "0-0")

                // An end with a past dismissal date takes the activities of the kept channel off every screen, and
                // the devices unsubscribe.
                let end = #"{"aps":{"event":"end","timestamp":\#(now + 120),"dismissal-date":\#(now - 1)}}"#
                let ended = try await client.broadcast(APNSBroadcastRequest(bundleID: Self.app, channelID: kept, payload: Array(end.utf8)))
                #expect(ended.status == 200)
                for device in [away, home] {
                    try await device.expectNoActivity(in: Self.app, within: .seconds(20), "on the kept channel") { $0.channelID == kept }
                }
                // Only the live channel's two subscriptions are left.
                try await eventually("the kept channel has no subscribers") { server.server.channels.subscriptionCount == 2 }
            }
        }
    }
}
