import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The web console's API against a live in-process server and device (tier 3).
@Suite("Console API: screens, interactions, validation, sending and live events", .tier(.inProcess))
struct ConsoleAPITests {
    static let app = "com.example.console"

    /// An app with a category that has a plain action and a text input action.
    static let manifest = """
        {"name": "Console Phone", "apps": [{"bundleID": "\(app)", "categories": [{"identifier": "ORDER", "actions": [
          {"identifier": "TRACK", "title": "Track"},
          {"identifier": "REPLY", "title": "Reply", "textInput": {"buttonTitle": "Send", "placeholder": "Message"}}
        ]}]}]}
        """

    static func alert(_ title: String) -> String {
        #"{"aps":{"alert":{"title":"\#(title)","body":"Your parcel is on its way"},"category":"ORDER"}}"#
    }

    static var options: HeraldTestServer.Options {
        var options = HeraldTestServer.Options()
        options.tls = false
        options.consoleLongPollTimeout = .milliseconds(300)
        return options
    }

    // MARK: Screen and interactions

    @Test("a push shows on GET /screen with its title and actions; an action with text reaches the trace and the screen")
    func screenAndInteractions() async throws {
        try await withHeraldServer(Self.options) { server in
            let device = try await server.addDevice(manifest: try DeviceManifest(json: Data(Self.manifest.utf8)))
            let sent = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/send",
                ["token": device.token(for: Self.app), "topic": Self.app, "payload": Self.alert("Shipped")]
            )
            let apnsID = try #require(sent.object?["apnsID"] as? String)

            // The screen shows the notification, its category's actions and the text input's button.
            let (notification, app) = try await Self.screenNotification(server, device.id, titled: "Shipped")
            let identifier = try #require(notification["identifier"] as? String)
            let categories = try #require(app["categories"] as? [[String: Any]])
            let actions = try #require(categories.first { $0["identifier"] as? String == "ORDER" }?["actions"] as? [[String: Any]])
            #expect(actions.map { $0["identifier"] as? String } == ["TRACK", "REPLY"])
            #expect(actions.last?["textInputButtonTitle"] as? String == "Send")
            // The app's token on the screen is the one the server issued (what a provider sends to).
            #expect(app["deviceToken"] as? String == (try device.token(for: Self.app)))
            let before = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(device.id)/screen")
            #expect(before.object?["online"] as? Bool == true)
            #expect(before.object?["deviceID"] as? String == device.id)
            // The device list says a screen is there (the console asks only then), with the same time.
            let listed = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(device.id)")
            #expect(listed.object?["screenAt"] as? Int64 == before.object?["updatedAt"] as? Int64)
            #expect(listed.object?["screenAt"] as? Int64 != nil)

            // A text input action: 200, then the trace has `action` with the action id and the text.
            let interaction: [String: Any] = [
                "bundleID": Self.app, "kind": "action", "identifier": identifier, "action": "REPLY", "text": "on my way",
            ]
            let done = try await ConsoleHTTP.post(server.inspectionURL, "devices/\(device.id)/interactions", interaction)
            #expect(done.status == 200)
            #expect(done.object?["ok"] as? Bool == true)
            let trace = try await server.expectTrace(of: apnsID, contains: .action)
            let detail = try #require(trace.first { $0.kind == .action }?.detailJSON)
            #expect(detail.contains(#""action":"REPLY""#))
            #expect(detail.contains(#""text":"on my way""#))
            // The device sent a fresh screen before it answered: the notification left Notification Center.
            let after = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(device.id)/screen")
            #expect(try #require(after.object?["updatedAt"] as? Int) >= (before.object?["updatedAt"] as? Int ?? .max))
            #expect(Self.notifications(in: try #require(after.object)).allSatisfy { $0["identifier"] as? String != identifier })

            // The device refuses what it cannot do (the notification is gone): 409 with its message.
            let tapAgain = try await ConsoleHTTP.post(
                server.inspectionURL,
                "devices/\(device.id)/interactions",
                ["bundleID": Self.app, "kind": "tap", "identifier": identifier]
            )
            #expect(tapAgain.status == 409)
            #expect((tapAgain.object?["error"] as? String)?.isEmpty == false)
            // A body that lacks what its kind needs, or names an unknown kind: 400.
            #expect(
                try await ConsoleHTTP.post(server.inspectionURL, "devices/\(device.id)/interactions", ["bundleID": Self.app, "kind": "action"]).status
                    == 400
            )
            #expect(
                try await ConsoleHTTP.post(server.inspectionURL, "devices/\(device.id)/interactions", ["bundleID": Self.app, "kind": "shake"]).status
                    == 400
            )
            // A state change runs too and shows on the screen.
            let state = try await ConsoleHTTP.post(
                server.inspectionURL,
                "devices/\(device.id)/interactions",
                ["bundleID": Self.app, "kind": "setState", "state": "foreground"]
            )
            #expect(state.status == 200)
            let moved = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(device.id)/screen")
            let apps = try #require((moved.object?["screen"] as? [String: Any])?["apps"] as? [[String: Any]])
            #expect(apps.first?["state"] as? String == "foreground")
        }
    }

    @Test("a device that is not connected: GET /screen is 404, an interaction 409")
    func offlineDevice() async throws {
        try await withHeraldServer(Self.options) { server in
            let credentials = try await server.server.store.addDevice(name: "switched off")
            let screen = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(credentials.device.id)/screen")
            #expect(screen.status == 404)
            let listed = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(credentials.device.id)")
            #expect(listed.status == 200 && listed.object?["screenAt"] is NSNull)
            let interaction = try await ConsoleHTTP.post(
                server.inspectionURL,
                "devices/\(credentials.device.id)/interactions",
                ["bundleID": Self.app, "kind": "tap", "identifier": "x"]
            )
            #expect(interaction.status == 409)
            #expect(interaction.object?["error"] as? String == "device \(credentials.device.id) is offline")
        }
    }

    // MARK: Validation and sending

    @Test("/console/validate gives the gateway's reason for bad pushes, and valid for a good one")
    func validateMatchesTheGateway() async throws {
        try await withHeraldServer(Self.options) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let token = try device.token(for: Self.app)
            let client = try server.makeProviderClient(tls: false)
            let cases: [(name: String, form: [String: Any], reason: String?)] = [
                ("empty payload", ["token": token, "topic": Self.app, "payload": ""], "PayloadEmpty"),
                ("not an object", ["token": token, "topic": Self.app, "payload": "[1,2]"], "PayloadEmpty"),
                (
                    "background with an alert",
                    ["token": token, "topic": Self.app, "pushType": "background", "priority": 5, "payload": #"{"aps":{"alert":"hi"}}"#],
                    "InvalidPushType"
                ),
                ("bad priority", ["token": token, "topic": Self.app, "priority": 7, "payload": Self.alert("p")], "BadPriority"),
                (
                    "collapse id over 64 bytes",
                    ["token": token, "topic": Self.app, "collapseID": String(repeating: "c", count: 65), "payload": Self.alert("c")],
                    "BadCollapseId"
                ),
                ("unknown token", ["token": String(repeating: "ab", count: 32), "topic": Self.app, "payload": Self.alert("u")], "BadDeviceToken"),
                (
                    "unknown app on the device", ["deviceID": device.id, "bundleID": "com.example.other", "payload": Self.alert("o")],
                    "BadDeviceToken"
                ),
                ("good", ["token": token, "topic": Self.app, "payload": Self.alert("Good")], nil),
                ("good, by device and app", ["deviceID": device.id, "bundleID": Self.app, "payload": Self.alert("Good")], nil),
            ]
            do {
                for item in cases {
                    let verdict = try #require(try await ConsoleHTTP.post(server.inspectionURL, "console/validate", item.form).object, "\(item.name)")
                    #expect(verdict["valid"] as? Bool == (item.reason == nil), "\(item.name)")
                    #expect(verdict["reason"] as? String == item.reason, "\(item.name)")
                    if item.reason != nil {
                        #expect(verdict["status"] as? Int == 400, "\(item.name)")
                        #expect((verdict["message"] as? String)?.isEmpty == false, "\(item.name)")
                    }
                    // The gateway itself, asked by a provider with its own key, agrees.
                    let response = try await client.send(try Self.providerRequest(item.form, server: server, device: device))
                    #expect(response.reason?.rawValue == item.reason, "\(item.name): the gateway said \(String(describing: response.reason))")
                }
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            // Validation stores nothing: only the two good pushes the provider sent exist.
            let stored = try await server.server.store.listNotifications(token: nil, limit: 100)
            #expect(stored.count == 2)
        }
    }

    @Test("/console/send goes through the gateway: 200 with its apns-id, the device shows it; a refusal is the gateway's")
    func sendThroughTheGateway() async throws {
        try await withHeraldServer(Self.options) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let response = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/send",
                ["deviceID": device.id, "bundleID": Self.app, "payload": Self.alert("From the console")]
            )
            #expect(response.status == 200)
            let body = try #require(response.object)
            #expect(body["status"] as? Int == 200)
            #expect(body["reason"] is NSNull)
            let apnsID = try #require(body["apnsID"] as? String)
            #expect(NotificationID(apnsID) != nil)
            try await device.expectNotification(titled: "From the console", in: Self.app)
            try await server.expectTrace(of: apnsID, contains: .displayed)

            let chosen = "7E2D1C4B-3A29-4F18-8E07-D6C5B4A39281"
            let refused = try #require(
                try await ConsoleHTTP.post(
                    server.inspectionURL,
                    "console/send",
                    ["token": device.token(for: Self.app), "topic": Self.app, "apnsID": chosen, "payload": "{"]
                ).object
            )
            #expect(refused["status"] as? Int == 400)
            #expect(refused["reason"] as? String == "PayloadEmpty")
            #expect((refused["apnsID"] as? String)?.lowercased() == chosen.lowercased())
            // A body that is not a push form is the console's own 400.
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "console/send", ["payload": 12]).status == 400)
            // So is one without a payload, or with a null one (docs/inspection-api.json: `payload` is required).
            let token = try device.token(for: Self.app)
            // And one with a header value HTTP/2 cannot carry: it could never be sent (docs/inspection-api.json).
            let unsendable: [[String: Any]] = [
                ["token": token, "collapseID": "a\nb", "payload": "{}"], ["token": token, "topic": "com.example\r", "payload": "{}"],
                ["deviceID": "d", "bundleID": "com.example\u{0}", "payload": "{}"],
            ]
            for form: [String: Any] in [["token": token], ["token": token, "payload": NSNull()]] + unsendable {
                #expect(try await ConsoleHTTP.post(server.inspectionURL, "console/send", form).status == 400)
                #expect(try await ConsoleHTTP.post(server.inspectionURL, "console/validate", form).status == 400)
            }
            // The console's key lives in memory only: the store knows just the test's provider key.
            #expect(try await server.server.store.signingKeys().map(\.keyID) == [server.credentials.keyID])
        }
    }

    // MARK: Events

    @Test("/console/channels, …/broadcast and …/channels/delete go through the gateway; /channels lists the result")
    func channelsThroughTheGateway() async throws {
        try await withHeraldServer(Self.options) { server in
            let created = try await ConsoleHTTP.post(server.inspectionURL, "console/channels", ["bundleID": Self.app, "storagePolicy": 1])
            #expect(created.status == 200)
            let answer = try #require(created.object)
            #expect(answer["status"] as? Int == 201)
            let channel = try #require(answer["channelID"] as? String)
            #expect(NotificationID(answer["requestID"] as? String ?? "") != nil)

            let expiration = server.clock.nowMilliseconds() / 1000 + 3600
            let payload: [String: Any] = ["aps": ["event": "update", "timestamp": 1_700_000_000, "content-state": ["score": "1-0"]]]
            let sent = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/broadcast",
                ["bundleID": Self.app, "channel": channel, "priority": 5, "expiration": expiration, "payload": payload]
            )
            #expect(sent.status == 200)
            #expect(sent.object?["status"] as? Int == 200)
            let requestID = try #require(sent.object?["requestID"] as? String)

            let listed = try await ConsoleHTTP.get(server.inspectionURL, "channels")
            let entry = try #require((listed.object?["channels"] as? [[String: Any]])?.first { $0["id"] as? String == channel })
            #expect(entry["storagePolicy"] as? Int == 1)
            #expect((entry["kept"] as? [String: Any])?["requestID"] as? String == requestID)
            #expect((entry["recent"] as? [[String: Any]])?.map { $0["requestID"] as? String } == [requestID])

            // The gateway's refusal comes back as its answer; a malformed request is the console's 400.
            let refused = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/broadcast",
                ["bundleID": Self.app, "channel": channel, "priority": 7, "payload": payload]
            )
            #expect(refused.object?["status"] as? Int == 400)
            #expect(refused.object?["reason"] as? String == "BadPriority")
            #expect(
                try await ConsoleHTTP.post(
                    server.inspectionURL,
                    "console/broadcast",
                    ["bundleID": Self.app, "channel": "not base64!", "payload": payload]
                ).status
                    == 400
            )
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "console/channels", ["bundleID": Self.app, "storagePolicy": 2]).status == 400)
            #expect(
                try await ConsoleHTTP.post(server.inspectionURL, "console/channels", text: #"{"bundleID": "\#(Self.app)", "storagePolicy": null}"#)
                    .status == 400
            )
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "console/broadcast", ["bundleID": Self.app, "channel": channel]).status == 400)

            let deleted = try await ConsoleHTTP.post(server.inspectionURL, "console/channels/delete", ["bundleID": Self.app, "channel": channel])
            #expect(deleted.object?["status"] as? Int == 204)
            let gone = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/broadcast",
                ["bundleID": Self.app, "channel": channel, "payload": payload]
            )
            #expect(gone.object?["reason"] as? String == "ChannelNotRegistered")
            #expect(
                try await ConsoleHTTP.get(
                    server.inspectionURL,
                    "channels?id=\(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                ).status
                    == 404
            )
        }
    }

    @Test("/events: a push brings screen and trace events; with nothing new, the long poll times out empty")
    func events() async throws {
        try await withHeraldServer(Self.options) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let start = try #require(try await ConsoleHTTP.get(server.inspectionURL, "events").object)
            #expect((start["events"] as? [Any])?.isEmpty == true)
            var next = try #require(start["next"] as? Int)
            let sent = try await ConsoleHTTP.post(
                server.inspectionURL,
                "console/send",
                ["token": device.token(for: Self.app), "topic": Self.app, "payload": Self.alert("Live")]
            )
            let apnsID = try #require(sent.object?["apnsID"] as? String)
            var seen: [[String: Any]] = []
            let deadline = ContinuousClock.now + .seconds(10)
            func sawScreen() -> Bool { seen.contains { $0["kind"] as? String == "screen" && $0["deviceID"] as? String == device.id } }
            func sawDisplayed() -> Bool {
                seen.contains {
                    $0["kind"] as? String == "trace" && ($0["apnsID"] as? String)?.lowercased() == apnsID.lowercased()
                        && $0["event"] as? String == "displayed"
                }
            }
            while !(sawScreen() && sawDisplayed()), ContinuousClock.now < deadline {
                let page = try #require(try await ConsoleHTTP.get(server.inspectionURL, "events?after=\(next)").object)
                let events = try #require(page["events"] as? [[String: Any]])
                #expect(events.allSatisfy { ($0["seq"] as? Int ?? 0) > next })
                seen += events
                next = try #require(page["next"] as? Int)
            }
            #expect(sawScreen(), "events: \(seen)")
            #expect(sawDisplayed(), "events: \(seen)")
            #expect(seen.contains { $0["kind"] as? String == "trace" && $0["event"] as? String == "accepted" })

            // Once the device is idle, a poll after the newest event waits and answers with none.
            try await device.expectNotification(titled: "Live", in: Self.app)
            await server.server.engine.waitUntilIdle()
            var quiet = try #require(try await ConsoleHTTP.get(server.inspectionURL, "events?after=\(next)").object)
            // Late screens may still arrive; poll until one answer is empty (the timeout is 300 ms).
            for _ in 0..<20 where (quiet["events"] as? [Any])?.isEmpty == false {
                next = try #require(quiet["next"] as? Int)
                quiet = try #require(try await ConsoleHTTP.get(server.inspectionURL, "events?after=\(next)").object)
            }
            #expect((quiet["events"] as? [Any])?.isEmpty == true)
            #expect(quiet["next"] as? Int == next)
            #expect(try await ConsoleHTTP.get(server.inspectionURL, "events?after=soon").status == 400)
        }
    }

    // MARK: Helpers

    /// Polls the device's screen until a notification with this title shows; returns it and its app.
    static func screenNotification(
        _ server: HeraldTestServer,
        _ deviceID: String,
        titled title: String
    ) async throws -> ([String: Any], [String: Any]) {
        var last = "no screen"
        return try await eventually("a notification titled \(title) on the screen of \(deviceID)", every: .milliseconds(50), state: "last: \(last)") {
            () -> ([String: Any], [String: Any])? in
            let response = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(deviceID)/screen")
            guard response.status == 200, let object = response.object else { return nil }
            last = String(decoding: response.body, as: UTF8.self)
            let apps = (object["screen"] as? [String: Any])?["apps"] as? [[String: Any]] ?? []
            for app in apps {
                if let match = notifications(inApp: app).first(where: { $0["title"] as? String == title }) {
                    return (match, app)
                }
            }
            return nil
        }
    }

    /// The notifications of every app of a `GET /screen` answer.
    static func notifications(in answer: [String: Any]) -> [[String: Any]] {
        let apps = (answer["screen"] as? [String: Any])?["apps"] as? [[String: Any]] ?? []
        return apps.flatMap(notifications(inApp:))
    }

    static func notifications(inApp app: [String: Any]) -> [[String: Any]] {
        let threads = (app["center"] as? [String: Any])?["threads"] as? [[String: Any]] ?? []
        return threads.flatMap { $0["notifications"] as? [[String: Any]] ?? [] }
    }

    /// The provider request a console form stands for, for asking the gateway directly.
    static func providerRequest(_ form: [String: Any], server: HeraldTestServer, device: TestDevice) throws -> APNSRequest {
        var token = form["token"] as? String
        if token == nil, let bundleID = form["bundleID"] as? String {
            token = device.tokens[bundleID] ?? "no-such-token"
        }
        return APNSRequest(
            deviceToken: token ?? "",
            payload: Array((form["payload"] as? String ?? "").utf8),
            topic: form["topic"] as? String ?? form["bundleID"] as? String,
            pushType: (form["pushType"] as? String).map(PushType.init(rawValue:)),
            priority: (form["priority"] as? Int).map(APNSPriority.init(rawValue:)),
            collapseID: form["collapseID"] as? String
        )
    }
}
