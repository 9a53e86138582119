import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldProviderClient
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

/// `liveactivity` pushes end to end: a device's activity tokens registered over the link, pushes through the gateway
/// handled by the device's ActivityKit, the tokens retired (docs/live-activities.md).
@Suite("Testing kit: Live Activity pushes by activity and push-to-start token", .tier(.inProcess))
struct LiveActivityPushTests {
    static let app = "com.example.food"
    static let topic = app + ".push-type.liveactivity"

    static let manifest = DeviceManifest(
        name: "Activity iPhone",
        apps: [
            AppManifest(
                bundleID: app,
                activities: [ActivityTypeManifest(name: "DeliveryAttributes", attributes: ["orderNumber"], contentState: ["status"])]
            )
        ]
    )

    /// Waits (with a deadline) until the device's registered activity tokens hold one of `kind`.
    static func registeredToken(_ device: TestDevice, kind: TokenKind, present: Bool = true) async throws -> String? {
        let token = { device.linked.activityTokens.first { $0.kind == kind }?.token.hex }
        guard present else {
            try await eventually("the retirement of the \(kind) token") { token() == nil }
            return nil
        }
        return try await eventually("a \(kind) token") { token() }
    }

    static func push(_ aps: String, to token: String, with client: APNSProviderClient) async throws -> APNSResponse {
        try await client.send(APNSRequest(deviceToken: token, payload: Array(#"{"aps":\#(aps)}"#.utf8), topic: topic, pushType: .liveactivity))
    }

    static func status(_ report: DeviceReport) -> String? {
        guard case .array(let activities)? = report.detail["activities"], case .object(let activity)? = activities.first,
            case .object(let state)? = activity["contentState"], case .string(let status)? = state["status"]
        else { return nil }
        return status
    }

    @Test("push-to-start starts an activity whose token is registered; an update changes it; an end dismissing it retires the token (410)")
    func startUpdateEnd() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(manifest: Self.manifest, clock: ManualNotificationClock(start: server.clock.now))
            let client = try server.makeProviderClient(tls: false)
            do {
                let pushToStart = try #require(try await Self.registeredToken(device, kind: .pushToStart))
                #expect(pushToStart != (try device.token(for: Self.app)))
                let now = server.clock.nowMilliseconds() / 1000
                let start = try await Self.push(
                    #"{"event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderNumber":42},"#
                        + #""content-state":{"status":"preparing"},"alert":{"title":"Order","body":"Preparing"},"input-push-token":1}"#,
                    to: pushToStart,
                    with: client
                )
                #expect(start.status == 200)
                let started = try await device.expectReport(.displayed, for: try #require(start.apnsID))
                #expect(Self.status(started) == "preparing")
                let activityToken = try #require(try await Self.registeredToken(device, kind: .activity))
                // The inspection API lists the device's tokens with their kinds.
                let listed = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(device.id)")
                let tokens = listed.object?["tokens"] as? [[String: Any]] ?? []
                let kinds = Dictionary(tokens.map { ($0["token"] as? String ?? "", $0["kind"] as? String ?? "") }) { first, _ in first }
                #expect(kinds[activityToken] == "activity")
                #expect(kinds[pushToStart] == "push-to-start")
                #expect(kinds[try device.token(for: Self.app)] == "device")
                #expect(tokens.first { $0["token"] as? String == activityToken }?["activityType"] as? String == "DeliveryAttributes")

                let update = try await Self.push(
                    #"{"event":"update","timestamp":\#(now + 1),"content-state":{"status":"on its way"}}"#,
                    to: activityToken,
                    with: client
                )
                #expect(update.status == 200)
                let updated = try await device.expectReport(.displayed, for: try #require(update.apnsID))
                #expect(Self.status(updated) == "on its way")
                #expect(await device.simulated.activities(in: Self.app).first?.contentState.contains("on its way") == true)

                // The device token takes no liveactivity push.
                let wrongKind = try await Self.push(
                    #"{"event":"update","timestamp":\#(now + 1),"content-state":{"status":"x"}}"#,
                    to: try device.token(for: Self.app),
                    with: client
                )
                #expect(wrongKind.status == 400)
                #expect(wrongKind.reason == .deviceTokenNotForTopic)

                let end = try await Self.push(
                    #"{"event":"end","timestamp":\#(now + 2),"content-state":{"status":"delivered"},"dismissal-date":\#(now - 60)}"#,
                    to: activityToken,
                    with: client
                )
                #expect(end.status == 200)
                let ended = try await device.expectReport(.removed, for: try #require(end.apnsID))
                #expect(ended.detail["activityEvents"] != nil)
                #expect(try await Self.registeredToken(device, kind: .activity, present: false) == nil)

                server.clock.advance(by: .seconds(60))
                let later = try await Self.push(
                    #"{"event":"update","timestamp":\#(now + 3),"content-state":{"status":"again"}}"#,
                    to: activityToken,
                    with: client
                )
                #expect(later.status == 410)
                #expect(later.reason == .unregistered)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
