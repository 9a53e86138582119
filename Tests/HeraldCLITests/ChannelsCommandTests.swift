import ArgumentParser
import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldTestTiers
import HeraldTesting
import Testing

@testable import HeraldCLI

/// `herald channels` and `herald send --broadcast`, in process, against an in-process Herald on its h2c port.
@Suite("herald channels and herald send --broadcast against a served gateway", .serialized, .tier(.inProcess))
struct ChannelsCommandTests {
    static let bundleID = "com.example.app"

    /// Where the server is and how to sign in: its h2c URL and its key; no data directory.
    static func connection(_ server: HeraldTestServer) -> [String] {
        let credentials = server.credentials
        return [
            "--data-dir", "/nonexistent/herald-data", "--server", server.cleartextURL, "--key-file", credentials.p8File.path,
            "--key-id", credentials.keyID, "--team-id", credentials.teamID,
        ]
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("create, list, show, broadcast with --event, delete: each answer and what the command prints")
    func lifecycle() async throws {
        try await withHeraldServer { server in
            let connection = Self.connection(server)
            let created = try await ChannelsCommand.Create.parse(connection + [Self.bundleID, "--storage-policy", "0"]).answer()
            #expect(created.status == 201, "\(created)")
            let channelID = try #require(created.channelID)
            #expect(try ChannelsOutput.created(created, json: false) == channelID)
            let createdJSON = try Self.object(ChannelsOutput.created(created, json: true))
            #expect(createdJSON["status"] as? Int == 201 && createdJSON["apnsChannelID"] as? String == channelID)
            #expect(NotificationID(createdJSON["apnsRequestID"] as? String ?? "") != nil)
            let stored = try #require(try await ChannelsCommand.Create.parse(connection + [Self.bundleID]).answer().channelID)

            let listed = try await ChannelsCommand.List.parse(connection + [Self.bundleID, "--json"]).answer()
            #expect(Set(try ChannelsOutput.listed(listed, json: false).split(separator: "\n").map(String.init)) == [channelID, stored])
            #expect(Set(try Self.object(ChannelsOutput.listed(listed, json: true))["channels"] as? [String] ?? []) == [channelID, stored])

            let shown = try await ChannelsCommand.Show.parse(connection + [Self.bundleID, channelID]).answer()
            #expect(try ChannelsOutput.shown(shown, json: false) == "\(channelID)  message-storage-policy 0  push-type LiveActivity")
            let shownJSON = try Self.object(ChannelsOutput.shown(shown, json: true))
            #expect(shownJSON["messageStoragePolicy"] as? Int == 0 && shownJSON["pushType"] as? String == "LiveActivity")
            #expect(
                try ChannelsOutput.shown(try await ChannelsCommand.Show.parse(connection + [Self.bundleID, stored]).answer(), json: false)
                    .contains("message-storage-policy 1")
            )

            // A broadcast on each: exit status 0 (run returns). The topic may carry the Live Activity suffix.
            let broadcast = [
                "--broadcast", channelID, "--topic", "\(Self.bundleID).push-type.liveactivity", "--event", "update", "--content-state",
                #"{"minutes": 5}"#,
            ]
            try await SendCommand.parse(connection + broadcast).run()
            try await SendCommand.parse(connection + ["--broadcast", stored, "--topic", Self.bundleID, "--event", "end", "--expiration", "+3600"])
                .run()

            let delete = try ChannelsCommand.Delete.parse(connection + [Self.bundleID, channelID])
            let deleted = try await delete.answer()
            #expect(deleted.status == 204)
            #expect(try ChannelsOutput.deleted(deleted, channelID: channelID, json: false) == "deleted \(channelID)")
            // Deleted: every command refuses it with exit status 1.
            await #expect(throws: ExitCode.failure) { try await delete.run() }
            await #expect(throws: ExitCode.failure) { try await ChannelsCommand.Show.parse(connection + [Self.bundleID, channelID]).run() }
            await #expect(throws: ExitCode.failure) { try await SendCommand.parse(connection + broadcast).run() }
            let left = try await ChannelsCommand.List.parse(connection + [Self.bundleID]).answer()
            #expect(left.channelIDs == [stored])
        }
    }

    @Test("refusals: ChannelNotRegistered and BadChannelId are one line (or JSON), exit status 1")
    func refusals() async throws {
        try await withHeraldServer { server in
            let connection = Self.connection(server)
            let unknown = Data(repeating: 7, count: 16).base64EncodedString()
            let notRegistered = try await ChannelsCommand.Show.parse(connection + [Self.bundleID, unknown]).answer()
            #expect(notRegistered.status == 400 && notRegistered.reason == .channelNotRegistered)
            let line = ChannelsOutput.refusal(notRegistered)
            #expect(line.hasPrefix("the server answered 400 ChannelNotRegistered (apns-request-id ") && !line.contains("\n"), "\(line)")
            let json = try Self.object(ChannelsOutput.refusalJSON(notRegistered))
            #expect(json["status"] as? Int == 400 && json["reason"] as? String == "ChannelNotRegistered")

            let badID = try await ChannelsCommand.Delete.parse(connection + [Self.bundleID, "not base64!"]).answer()
            #expect(badID.status == 400 && badID.reason == .badChannelId)
            await #expect(throws: ExitCode.failure) {
                try await ChannelsCommand.Delete.parse(connection + [Self.bundleID, "not base64!", "--json"]).run()
            }

            // A broadcast to a channel the app does not have; a stored message on a channel that keeps none.
            let send = ["--topic", Self.bundleID, "--event", "update", "--content-state", "{}"]
            let toUnknown = try await SendCommand.parse(connection + send + ["--broadcast", unknown]).resolve(now: Date())
            let request = try #require(toUnknown.broadcast)
            let client = try APNSProviderClient(configuration: toUnknown.configuration)
            let refused = try await client.broadcast(request)
            await client.shutdown()
            #expect(refused.status == 400 && refused.reason == .channelNotRegistered)
            #expect(SendOutput.line(refused).hasPrefix("400 ChannelNotRegistered  apns-request-id "))
            let noStorage = try #require(
                try await ChannelsCommand.Create.parse(connection + [Self.bundleID, "--storage-policy", "0"]).answer().channelID
            )
            await #expect(throws: ExitCode.failure) {
                try await SendCommand.parse(connection + send + ["--broadcast", noStorage, "--expiration", "+60"]).run()
            }
        }
    }

    @Test("bad input is one line before anything is sent: storage policy, bundle id, a header that cannot travel")
    func badInput() async throws {
        try await withHeraldServer { server in
            let connection = Self.connection(server)
            await #expect(throws: CLIFailure("--storage-policy must be 0 or 1, not 2")) {
                try await ChannelsCommand.Create.parse(connection + [Self.bundleID, "--storage-policy", "2"]).answer()
            }
            await #expect(throws: CLIFailure("'com.example/app' is not a bundle id")) {
                try await ChannelsCommand.List.parse(connection + ["com.example/app"]).answer()
            }
            await #expect(throws: APNSProviderClientError.invalidRequest) {
                try await ChannelsCommand.Show.parse(connection + [Self.bundleID, "a\r\nb"]).answer()
            }
            await #expect(throws: ExitCode.failure) { try await ChannelsCommand.Show.parse(connection + [Self.bundleID, "a\r\nb"]).run() }
            #expect(throws: (any Error).self) { try ChannelsCommand.Create.parse(connection + [Self.bundleID, "--storage-policy", "one"]) }
            #expect(throws: (any Error).self) { try ChannelsCommand.Show.parse(connection + [Self.bundleID]) }
            // Nothing was created.
            let listed = try await ChannelsCommand.List.parse(connection + [Self.bundleID]).answer()
            #expect(listed.status == 200 && listed.channelIDs == [])
        }
    }
}
