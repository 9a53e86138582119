import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `herald send --event …` (a Live Activity payload from options) and `--broadcast CHANNEL`, resolved without a server.
@Suite("herald send: Live Activity payloads and broadcasts", .serialized, .tier(.unit))
struct SendLiveActivityTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func resolve(_ arguments: [String], data: SendResolutionTests.DataDirectory) async throws -> SendPlan {
        try await SendCommand.parse(["--data-dir", data.url.path] + arguments).resolve(now: Self.now)
    }

    private func failure(_ arguments: [String], data: SendResolutionTests.DataDirectory) async -> String? {
        do {
            _ = try await resolve(arguments, data: data)
            return nil
        } catch let error as CLIFailure {
            return error.description
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("--event builds the aps dictionary in Apple's order, JSON options as written; push type liveactivity")
    func eventPayload() async throws {
        let data = try await SendResolutionTests.DataDirectory()
        let topic = "com.example.app.push-type.liveactivity"
        let start = try await resolve(
            [
                "--token", SendResolutionTests.token, "--topic", topic, "--event", "start", "--content-state", #"{"minutes": 5}"#,
                "--attributes-type", "Delivery\"Attributes", "--attributes", #"{"order": "A1"}"#, "--stale-date", "+600",
                "--alert-title", "Order A1", "--alert-body", "Preparing", "--input-push-token",
            ],
            data: data
        )
        let request = try #require(start.request)
        #expect(
            String(decoding: request.payload, as: UTF8.self)
                == #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{"minutes": 5},"stale-date":1700000600,"#
                + #""attributes-type":"Delivery\"Attributes","attributes":{"order": "A1"},"alert":{"title":"Order A1","body":"Preparing"},"#
                + #""input-push-token":1}}"#
        )
        // With --event, --alert is the alert's body; --input-push-channel names the channel the activity follows.
        let channel = try #require(
            try await resolve(
                [
                    "--token", SendResolutionTests.token, "--topic", topic, "--event", "start", "--content-state", "{}", "--attributes-type", "T",
                    "--attributes", "{}", "--alert", "On its way", "--input-push-channel", "Y2hhbm5lbA==",
                ],
                data: data
            ).request
        )
        #expect(
            String(decoding: channel.payload, as: UTF8.self)
                == #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{},"attributes-type":"T","attributes":{},"#
                + #""alert":{"body":"On its way"},"input-push-channel":"Y2hhbm5lbA=="}}"#
        )
        #expect(request.pushType == .liveactivity && request.topic == topic && request.priority == nil)
        let end = try #require(
            try await resolve(["--token", SendResolutionTests.token, "--topic", topic, "--event", "end", "--dismissal-date", "0"], data: data).request
        )
        #expect(String(decoding: end.payload, as: UTF8.self) == #"{"aps":{"timestamp":1700000000,"event":"end","dismissal-date":0}}"#)
        // A payload with aps.event from any source is a Live Activity push unless --push-type says otherwise.
        let given = try await resolve(
            ["--token", SendResolutionTests.token, "--topic", topic, "--payload", #"{"aps":{"event":"update"}}"#],
            data: data
        )
        #expect(given.request?.pushType == .liveactivity)
    }

    @Test("--broadcast: the bundle id from --topic, liveactivity, priority 10 and expiration 0 by default; options override")
    func broadcast() async throws {
        let data = try await SendResolutionTests.DataDirectory()
        let plan = try await resolve(
            [
                "--broadcast", "AAAAAAAAAAAAAAAAAAAAAA==", "--topic", "com.example.app.push-type.liveactivity", "--event", "update",
                "--content-state", "{}",
            ],
            data: data
        )
        #expect(plan.request == nil)
        let request = try #require(plan.broadcast)
        #expect(request.bundleID == "com.example.app" && request.channelID == "AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(request.pushType == .liveactivity && request.priority == .immediate && request.expiration == 0 && request.requestID == nil)
        #expect(String(decoding: request.payload, as: UTF8.self) == #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}"#)
        let overridden = try #require(
            try await resolve(
                [
                    "--broadcast", "C", "--topic", "com.example.app", "--payload", #"{"aps":{"event":"end","timestamp":1}}"#, "--priority", "5",
                    "--expiration", "+60", "--push-type", "alert",
                ],
                data: data
            ).broadcast
        )
        #expect(overridden.bundleID == "com.example.app" && overridden.priority == .powerConsiderate && overridden.expiration == 1_700_000_060)
        #expect(overridden.pushType == .alert)
    }

    @Test(
        "usage errors are one line",
        arguments: [
            (["--broadcast", "C", "--event", "end"], "give --topic"),
            (["--broadcast", "C", "--topic", "t", "--token", "ab", "--alert", "x"], "give --token or --broadcast, not both"),
            (["--broadcast", "C", "--topic", "t", "--alert", "x", "--repeat", "2"], "--repeat is for pushes to a device"),
            (["--broadcast", "C", "--topic", "t", "--alert", "x", "--apns-id", "x"], "not broadcast headers"),
            (["--topic", "t", "--token", "ab", "--event", "begin"], "--event must be start, update or end, not 'begin'"),
            (["--topic", "t", "--token", "ab", "--alert", "x", "--content-state", "{}"], "--content-state goes with --event"),
            (["--topic", "t", "--token", "ab", "--alert", "x", "--dismissal-date", "1"], "--dismissal-date goes with --event"),
            (["--topic", "t", "--token", "ab", "--event", "update", "--attributes", "{}"], "go with --event start"),
            (["--topic", "t", "--token", "ab", "--event", "update", "--content-state", "[1]"], "--content-state must be a JSON object"),
            (["--topic", "t", "--token", "ab", "--event", "start", "--attributes", "{"], "--attributes must be a JSON object"),
            (["--topic", "t", "--token", "ab", "--event", "end", "--stale-date", "soon"], "--stale-date must be seconds"),
            (["--topic", "t", "--token", "ab", "--event", "end", "--alert", "x", "--payload", "{}"], "give one payload, not 2"),
            (["--topic", "t", "--token", "ab", "--event", "end", "--alert", "x", "--alert-body", "y"], "give --alert or --alert-body, not both"),
            (["--topic", "t", "--token", "ab", "--alert", "x", "--alert-title", "y"], "--alert-title goes with --event"),
            (["--topic", "t", "--token", "ab", "--alert", "x", "--input-push-token"], "--input-push-token goes with --event"),
            (["--topic", "t", "--token", "ab", "--event", "update", "--input-push-channel", "C"], "go with --event start"),
            (
                ["--topic", "t", "--token", "ab", "--event", "start", "--input-push-token", "--input-push-channel", "C"],
                "give --input-push-token or --input-push-channel, not both"
            ),
            (["--topic", "t", "--token", "ab", "--alert", "x", "--expiration", "+9223372036854775807"], "--expiration must be"),
            (["--topic", "t", "--token", "ab", "--event", "end", "--dismissal-date", "+9223372036854775807"], "--dismissal-date must be"),
        ]
    )
    func usageErrors(arguments: [String], message: String) async throws {
        let data = try await SendResolutionTests.DataDirectory()
        let text = try #require(await failure(arguments, data: data))
        #expect(text.contains(message), "\(text)")
        #expect(!text.contains("\n"))
    }

    @Test(
        "--event start without what ActivityKit needs to start an activity is refused before anything is sent, naming what is missing",
        arguments: [
            (
                ["--token", "ab", "--event", "start"],
                "--event start needs --attributes-type, --attributes, --content-state, an alert (--alert-title, --alert-body): a device drops a start without them"
            ),
            (
                ["--token", "ab", "--event", "start", "--attributes-type", "T", "--attributes", "{}", "--content-state", "{}"],
                "--event start needs an alert (--alert-title, --alert-body): a device drops a start without them"
            ),
            // Without --token, the push-to-start token herald send picks names the type.
            (
                ["--event", "start", "--alert", "x", "--content-state", "{}"],
                "--event start needs --attributes: a device drops a start without them"
            ),
        ]
    )
    func incompleteStart(arguments: [String], message: String) async throws {
        let data = try await SendResolutionTests.DataDirectory()
        #expect(await failure(["--topic", "com.example.app.push-type.liveactivity"] + arguments, data: data) == message)
    }

    @Test("without --token, --event start goes to the app's push-to-start token and takes its activity type; update to the activity's token")
    func tokenByKind() async throws {
        let data = try await SendResolutionTests.DataDirectory()
        let options = try DataDirectoryOptions.parse(["--data-dir", data.url.path])
        let phone = try await LocalDevelopment.deviceCredentials(name: "la-phone", data: options)
        let store = try await openStore(options)
        let device = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.delivery", environment: .sandbox).token.token
        for (kind, byte) in [(TokenKind.pushToStart, "a1"), (.activity, "b2")] {
            let token = try #require(DeviceToken(hex: String(repeating: byte, count: 32)))
            _ = try await store.registerActivityToken(
                ActivityTokenRequest(
                    deviceID: phone.id,
                    bundleID: "com.example.delivery",
                    environment: .sandbox,
                    kind: kind,
                    token: token,
                    activityType: "DeliveryAttributes"
                ),
                limit: 64
            )
        }
        await store.shutdown()
        let topic = "com.example.delivery.push-type.liveactivity"
        let start = try #require(
            try await resolve(
                ["--topic", topic, "--event", "start", "--attributes", "{}", "--content-state", "{}", "--alert-body", "Preparing"],
                data: data
            ).request
        )
        #expect(start.deviceToken == String(repeating: "a1", count: 32))
        #expect(
            String(decoding: start.payload, as: UTF8.self)
                == #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{},"attributes-type":"DeliveryAttributes","attributes":{},"#
                + #""alert":{"body":"Preparing"}}}"#
        )
        let update = try #require(try await resolve(["--topic", topic, "--event", "update", "--content-state", "{}"], data: data).request)
        #expect(update.deviceToken == String(repeating: "b2", count: 32))
        let alert = try #require(try await resolve(["--topic", "com.example.delivery", "--alert", "Hello"], data: data).request)
        #expect(alert.deviceToken == device.hex)
    }

    @Test("--broadcast without --expiration: the channel's storage policy decides, so that policy 1 keeps the message")
    func broadcastExpirationFollowsPolicy() async throws {
        let data = try await SendResolutionTests.DataDirectory()
        let channel = ["--broadcast", "C", "--topic", "com.example.app", "--event", "end"]
        #expect(try await resolve(channel, data: data).expirationFollowsChannel)
        #expect(try await !resolve(channel + ["--expiration", "0"], data: data).expirationFollowsChannel)
        #expect(SendCommand.broadcastExpiration(policy: .mostRecentMessageStored, now: Self.now) == 1_700_000_000 + 8 * 3600)
        #expect(SendCommand.broadcastExpiration(policy: .noMessageStored, now: Self.now) == 0)
        #expect(SendCommand.broadcastExpiration(policy: nil, now: Self.now) == 0)
    }
}
