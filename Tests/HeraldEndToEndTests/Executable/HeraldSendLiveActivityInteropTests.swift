import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Tier 3 with real processes: what `herald send`, `herald channels` and `herald device` say and choose for Live
/// Activities (issue 37): each message as the exact line on standard error with exit status 1, and each choice
/// against a running server.
@Suite("Interop: herald send and herald device with Live Activity tokens", .tier(.process))
struct HeraldSendLiveActivityInteropTests {
    static let app = "com.example.delivery"
    static let liveActivityTopic = "com.example.delivery.push-type.liveactivity"

    /// A manifest with one app that has one activity type (docs/device-manifest.md, `activities[]`).
    static let manifest = """
        {"apps": [{"bundleID": "com.example.delivery", "activities": [{"name": "DeliveryAttributes",
          "attributes": ["orderNumber"], "contentState": ["status", "minutes"]}]}]}
        """

    @Test("without --token: one line naming what to give, exit 1, nothing on standard output")
    func messages() async throws {
        try await HeraldWorkspace.with { workspace in
            let phone = try await workspace.addDevice("la-phone")
            try await withStore(in: workspace.data.path) { store in
                _ = try await store.registerAppToken(deviceID: phone.id, bundleID: Self.app, environment: .sandbox)
                for (kind, byte) in [(TokenKind.pushToStart, "a1"), (.activity, "b2"), (.activity, "c3")] {
                    let request = try HeraldDevicesCommandTests.activityToken(phone.id, Self.app, kind, byte)
                    _ = try await store.registerActivityToken(request, limit: 64)
                }
            }
            let update = ["send", "--topic", Self.liveActivityTopic, "--event", "update", "--content-state", "{}"]
            let start = ["send", "--topic", Self.liveActivityTopic, "--event", "start", "--attributes", "{}", "--content-state", "{}"]
            let cases: [([String], String)] = [
                (update, "la-phone has 2 activity tokens of com.example.delivery: give --token (see `herald devices list`)"),
                (start, "--event start needs an alert (--alert-title, --alert-body): a device drops a start without them"),
                (
                    start + ["--alert", "x", "--attributes-type", "GameAttributes"],
                    "no device has a push-to-start token of com.example.delivery for GameAttributes (run `herald device --manifest FILE` "
                        + "with an activity type for it, docs/device-manifest.md), or give --token"
                ),
                (start + ["--alert", "x", "--alert-body", "y"], "give --alert or --alert-body, not both (with --event, --alert is the body)"),
                (["send", "--topic", Self.app, "--alert", "x", "--alert-title", "y"], "--alert-title goes with --event"),
                (
                    start + ["--alert", "x", "--input-push-token", "--input-push-channel", "C"],
                    "give --input-push-token or --input-push-channel, not both"
                ),
            ]
            for (arguments, message) in cases {
                let result = try await workspace.cli(arguments)
                #expect(result.status == 1 && !result.timedOut && result.stdout.isEmpty, "\(arguments)\n\(result)")
                #expect(result.stderr == "herald: error: \(message)\n", "\(arguments)\n\(result)")
            }

            // Devices are counted once, whatever tokens they hold.
            let tablet = try await workspace.addDevice("tablet")
            try await withStore(in: workspace.data.path) { store in
                _ = try await store.registerAppToken(deviceID: tablet.id, bundleID: Self.app, environment: .sandbox)
            }
            let alert = try await workspace.cli(["send", "--topic", Self.app, "--alert", "x"])
            #expect(alert.status == 1 && alert.stdout.isEmpty, "\(alert)")
            let devices = "herald: error: 2 devices have com.example.delivery (la-phone, tablet): give --token (see `herald devices list`)\n"
            #expect(alert.stderr == devices, "\(alert)")
        }
    }

    @Test("an alert goes to the device token of a device with an activity type; the device prints its push-to-start token")
    func alertToDeviceToken() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let phone = try await workspace.addDevice("la-phone")
            let manifest = workspace.data.appendingPathComponent("delivery.json")
            try Self.manifest.write(to: manifest, atomically: true, encoding: .utf8)
            let device = try workspace.start([
                "device", "--server", server.deviceLinkURL, "--id", phone.id, "--secret", phone.secret, "--manifest", manifest.path, "--json",
            ])
            let printed = try await device.waitForOutput(deadline: .seconds(30)) { $0.contains(#""event":"activityToken""#) }
            let start = try #require(
                printed.split(separator: "\n").compactMap { HeraldExecutableInteropTests.jsonObject(String($0)) }
                    .first { $0["event"] as? String == "activityToken" },
                "\(printed)"
            )
            #expect(start["kind"] as? String == "push-to-start" && start["activityType"] as? String == "DeliveryAttributes", "\(start)")
            #expect(start["bundleID"] as? String == Self.app && (start["token"] as? String)?.count == 64, "\(start)")

            let sent = try await workspace.cli(["send", "--server", server.providerURL, "--topic", Self.app, "--alert", "Hello"])
            #expect(sent.succeeded && sent.lines.first?.hasPrefix("200  apns-id ") == true, "\(sent)")
            let shown = try await device.waitForOutput(deadline: .seconds(30)) { $0.contains(#""event":"notification""#) }
            let notification = try #require(
                shown.split(separator: "\n").compactMap { HeraldExecutableInteropTests.jsonObject(String($0)) }
                    .first { $0["event"] as? String == "notification" },
                "\(shown)"
            )
            let registered = shown.split(separator: "\n").compactMap { HeraldExecutableInteropTests.jsonObject(String($0)) }
                .first { $0["event"] as? String == "registered" }
            #expect(notification["pushType"] as? String == "alert", "\(notification)")
            #expect(notification["token"] as? String == registered?["token"] as? String, "\(shown)")
        }
    }

    @Test("send --broadcast without --expiration: kept 8 hours on a storage-policy-1 channel, 0 on a policy-0 channel")
    func broadcastExpiration() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let update = ["--topic", Self.app, "--event", "update", "--content-state", #"{"status": "on its way", "minutes": 5}"#]
            for policy in ["1", "0"] {
                let created = try await workspace.cli(["channels", "create", Self.app, "--storage-policy", policy, "--server", server.providerURL])
                let channel = try #require(created.lines.first, "\(created)")
                let before = Int64(Date().timeIntervalSince1970)
                let sent = try await workspace.cli(["send", "--server", server.providerURL, "--broadcast", channel] + update)
                let after = Int64(Date().timeIntervalSince1970)
                #expect(sent.succeeded && sent.lines.first?.hasPrefix("200  apns-request-id ") == true, "\(sent)")
                let query = channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel
                let (status, object) = try await server.inspect("/api/v1/channels?id=\(query)")
                let listed = try #require((object?["channels"] as? [[String: Any]])?.first, "\(status) \(object ?? [:])")
                if policy == "1" {
                    let keptUntil = try #require(((listed["kept"] as? [String: Any])?["keptUntil"] as? NSNumber)?.int64Value, "\(listed)")
                    #expect((before + 8 * 3600) * 1000 <= keptUntil && keptUntil <= (after + 8 * 3600) * 1000, "\(listed)")
                } else {
                    #expect(listed["kept"] == nil || listed["kept"] is NSNull, "\(listed)")
                }
            }
        }
    }
}
