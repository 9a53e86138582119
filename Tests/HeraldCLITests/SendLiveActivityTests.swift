import Foundation
import HeraldCore
import HeraldProviderClient
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
            ],
            data: data
        )
        let request = try #require(start.request)
        #expect(
            String(decoding: request.payload, as: UTF8.self)
                == #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{"minutes": 5},"stale-date":1700000600,"#
                + #""attributes-type":"Delivery\"Attributes","attributes":{"order": "A1"}}}"#
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
            (["--topic", "t", "--token", "ab", "--event", "end", "--alert", "x"], "give one payload, not 2"),
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
}
