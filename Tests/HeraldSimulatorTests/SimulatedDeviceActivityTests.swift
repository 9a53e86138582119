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
}
