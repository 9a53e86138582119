import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@Suite("Simulated device: Live Activities from the manifest", .tier(.unit))
struct SimulatedDeviceActivityTests {
    static let manifest = """
        {"name": "phone", "apps": [{"bundleID": "com.example.food",
          "activities": [{"name": "DeliveryAttributes", "attributes": ["orderNumber"], "contentState": ["status"]}]}]}
        """

    static func activityPush(_ aps: String, token: String) -> IncomingNotification {
        var notification = push(#"{"aps":\#(aps)}"#, to: "com.example.food", pushType: .liveactivity)
        notification.token = DeviceToken(hex: token)
        return notification
    }

    @Test("a type's push-to-start token starts an activity with its own token; content missing a member is dropped")
    func startAndDrop() async throws {
        let device = try await makeDevice(Self.manifest)
        let start = try #require(await device.activityTokens().first)
        #expect(start.kind == .pushToStart && start.activityType == "DeliveryAttributes")
        let reports = await device.receive(
            Self.activityPush(
                #"{"event":"start","timestamp":1700000000,"attributes-type":"DeliveryAttributes","attributes":{"orderNumber":7},"#
                    + #""content-state":{"status":"preparing"},"alert":{"title":"Order","body":"Preparing"},"input-push-token":1}"#,
                token: start.token.hex
            )
        )
        #expect(reports.map(\.event) == [.displayed])
        let activity = try #require(await device.activityTokens().first { $0.kind == .activity })
        #expect(activity.token != start.token)

        let dropped = await device.receive(
            Self.activityPush(#"{"event":"update","timestamp":1700000001,"content-state":{"minutes":3}}"#, token: activity.token.hex)
        )
        #expect(dropped.map(\.event) == [.dropped])
        #expect(dropped.first?.detail["reason"] == .string("undecodable-content-state"))
        #expect(await device.activities(in: "com.example.food").first?.contentState.contains("preparing") == true)
    }

    @Test("an app without activity types drops liveactivity pushes as unsupported")
    func noActivities() async throws {
        let device = try await makeDevice(#"{"name": "phone", "apps": [{"bundleID": "com.example.food"}]}"#)
        #expect(await device.activityTokens().isEmpty)
        let reports = await device.receive(Self.activityPush(#"{"event":"update","timestamp":1}"#, token: String(repeating: "ab", count: 32)))
        #expect(reports.first?.detail["reason"] == .string("unsupportedPushType"))
    }

    @Test("an activity started with input-push-channel follows the channel: broadcasts update it once each, until it ends")
    func channelBroadcasts() async throws {
        let device = try await makeDevice(Self.manifest)
        let channel = "Y2hhbm5lbC1vbmU="
        #expect(await device.channelSubscriptions().isEmpty)
        let start = try #require(await device.activityTokens().first)
        let started = await device.receive(
            Self.activityPush(
                #"{"event":"start","timestamp":1700000000,"attributes-type":"DeliveryAttributes","attributes":{"orderNumber":7},"#
                    + #""content-state":{"status":"preparing"},"alert":{"title":"Order","body":"Preparing"},"input-push-channel":"\#(channel)"}"#,
                token: start.token.hex
            )
        )
        #expect(started.map(\.event) == [.displayed])
        let subscriptions = await device.channelSubscriptions()
        #expect(subscriptions.map(\.channelID) == [channel])
        #expect(subscriptions.first?.bundleID == "com.example.food")
        // A channel activity has no push token of its own.
        #expect(await device.activityTokens().allSatisfy { $0.kind == .pushToStart })

        func broadcast(_ aps: String, requestID: String, channel: String = channel, bundle: String = "com.example.food") async -> [DeviceReport] {
            await device.receiveBroadcast(
                IncomingBroadcast(channelID: channel, bundleID: bundle, requestID: requestID, priority: 10, payload: Array(#"{"aps":\#(aps)}"#.utf8))
            )
        }
        let update = #"{"event":"update","timestamp":1700000010,"content-state":{"status":"on its way"}}"#
        let updated = await broadcast(update, requestID: "11111111-1111-4111-8111-111111111111")
        #expect(updated.map(\.event) == [.displayed])
        #expect(updated.first?.detail["channel"] == .string(channel))
        #expect(await device.activities(in: "com.example.food").first?.contentState.contains("on its way") == true)
        // The same request again (the kept message after a reconnect) is dropped.
        let again = await broadcast(update, requestID: "11111111-1111-4111-8111-111111111111")
        #expect(again.first?.detail["reason"] == .string("duplicate"))
        // Another channel: no activity follows it.
        let elsewhere = await broadcast(update, requestID: "22222222-2222-4222-8222-222222222222", channel: "b3RoZXI=")
        #expect(elsewhere.first?.detail["reason"] == .string("no-activity"))
        let unknownApp = await broadcast(update, requestID: "33333333-3333-4333-8333-333333333333", bundle: "com.example.none")
        #expect(unknownApp.first?.detail["reason"] == .string("unknownApp"))

        let ended = await broadcast(
            #"{"event":"end","timestamp":1700000020,"content-state":{"status":"delivered"},"dismissal-date":1}"#,
            requestID: "44444444-4444-4444-8444-444444444444"
        )
        #expect(ended.map(\.event) == [.removed])
        #expect(await device.activities(in: "com.example.food").isEmpty)
        #expect(await device.channelSubscriptions().isEmpty)
    }

    @Test("a type's lockScreen template draws each activity's view from its attributes and content state; an unknown placeholder is refused")
    func lockScreenTemplate() async throws {
        let device = try await makeDevice(
            """
            {"name": "phone", "apps": [{"bundleID": "com.example.food", "activities": [{"name": "DeliveryAttributes",
              "attributes": ["orderNumber"], "contentState": ["status"],
              "lockScreen": {"title": "Order {attributes.orderNumber}", "lines": ["{state.status}", "{state.eta.minutes} min"]}}]}]}
            """
        )
        let start = try #require(await device.activityTokens().first)
        _ = await device.receive(
            Self.activityPush(
                #"{"event":"start","timestamp":1700000000,"attributes-type":"DeliveryAttributes","attributes":{"orderNumber":7},"#
                    + #""content-state":{"status":"preparing","eta":{"minutes":12}},"alert":{"title":"Order","body":"Preparing"}}"#,
                token: start.token.hex
            )
        )
        let app = try #require(await device.snapshot().apps.first)
        let activity = try #require(app.activities?.first)
        #expect(app.activityViews?[activity.id] == ActivityView(title: "Order 7", lines: ["preparing", "12 min"]))

        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                ActivityTypeManifest.self,
                from: Data(#"{"name": "T", "lockScreen": {"title": "{status}"}}"#.utf8)
            )
        }
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(ActivityTypeManifest.self, from: Data(#"{"name": "T", "lockScreen": {"lines": ["{state.}"]}}"#.utf8))
        }
        // An app without a template has no views.
        let plain = try await makeDevice(Self.manifest)
        #expect(await plain.snapshot().apps.first?.activityViews?.isEmpty == true)
    }
}
