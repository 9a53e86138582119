import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `herald send`'s options turned into a request and a client configuration, without a server.
@Suite("herald send: option resolution", .serialized, .tier(.unit))
struct SendResolutionTests {
    static let token = String(repeating: "ab", count: 32)
    static let teamID = "CLITEAM123"

    /// A data directory with one key kept by `herald keys generate`.
    final class DataDirectory: Sendable {
        let url: URL
        let keyID = "CLIKEY1234"

        init() async throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-send-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let out = url.appendingPathComponent("out.p8").path
            let generate = try KeysCommand.Generate.parse([
                "--data-dir", url.path, "--key-id", keyID, "--team-id", SendResolutionTests.teamID, "--out", out,
            ])
            try await generate.run()
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    private func resolve(_ arguments: [String], data: DataDirectory? = nil) async throws -> SendPlan {
        let dataArguments = ["--data-dir", data?.url.path ?? "/nonexistent/herald-data"]
        let command = try SendCommand.parse(dataArguments + ["--token", Self.token] + arguments)
        return try await command.resolve(now: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// The one-line message of a usage error.
    private func failure(_ arguments: [String], data: DataDirectory? = nil) async -> String? {
        do {
            _ = try await resolve(arguments, data: data)
            return nil
        } catch let error as CLIFailure {
            return error.description
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("with no key options, the key kept in the data directory and its registered team are used")
    func keptKey() async throws {
        let data = try await DataDirectory()
        #expect(FileManager.default.fileExists(atPath: data.url.appendingPathComponent("keys/AuthKey_\(data.keyID).p8").path))
        let plan = try await resolve(["--alert", "hi", "--topic", "com.example.app"], data: data)
        guard case .token(let key) = plan.configuration.authentication else {
            Issue.record("token authentication expected")
            return
        }
        #expect(key.keyID == data.keyID && key.teamID == Self.teamID)
        #expect(plan.configuration.endpoint == APNSProviderClient.Endpoint(host: "localhost", port: 2197, usesTLS: true))
        #expect(plan.configuration.trustRootFiles.isEmpty)  // `serve` has not written the CA yet
        #expect(plan.request?.deviceToken == Self.token)
        #expect(plan.request?.topic == "com.example.app" && plan.request?.pushType == .alert && plan.request?.priority == nil)
        #expect(String(decoding: plan.request?.payload ?? [], as: UTF8.self) == #"{"aps":{"alert":"hi"}}"#)
    }

    @Test("a .apns file's Simulator Target Bundle is the topic unless --topic says otherwise, and is not sent")
    func apnsFile() async throws {
        let data = try await DataDirectory()
        let file = data.url.appendingPathComponent("push.apns")
        try Data(#"{"Simulator Target Bundle":"com.example.sim","aps":{"content-available":1}}"#.utf8).write(to: file)
        let plan = try await resolve([file.path], data: data)
        #expect(plan.request?.topic == "com.example.sim")
        #expect(String(decoding: plan.request?.payload ?? [], as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
        // Content-available only: a background push, priority 5 (Apple: 10 is an error for background).
        #expect(plan.request?.pushType == .background && plan.request?.priority == .powerConsiderate)

        let overridden = try await resolve(["--payload-file", file.path, "--topic", "com.example.other", "--priority", "10"], data: data)
        #expect(overridden.request?.topic == "com.example.other" && overridden.request?.priority == .immediate)
    }

    @Test("header options are passed as given; --expiration takes +SECONDS")
    func headers() async throws {
        let data = try await DataDirectory()
        let plan = try await resolve(
            [
                "--payload", #"{"aps":{"alert":"x","content-available":1}}"#, "--topic", "t", "--push-type", "voip", "--collapse-id", "c",
                "--apns-id", "not-a-uuid", "--expiration", "+60", "--server", "http://127.0.0.1:2195", "--repeat", "3", "--rate", "10",
            ],
            data: data
        )
        #expect(plan.request?.pushType == PushType(rawValue: "voip") && plan.request?.collapseID == "c" && plan.request?.apnsID == "not-a-uuid")
        #expect(plan.request?.expiration == 1_700_000_060)
        #expect(plan.configuration.endpoint.usesTLS == false)
        #expect(plan.repeatCount == 3 && plan.rate == 10)
        let alertAndContent = try await resolve(["--payload", #"{"aps":{"alert":"x","content-available":1}}"#, "--topic", "t"], data: data)
        #expect(alertAndContent.request?.pushType == .alert)
    }

    @Test("explicit key options need no data directory")
    func explicitKey() async throws {
        let data = try await DataDirectory()
        let p8 = data.url.appendingPathComponent("keys/AuthKey_\(data.keyID).p8").path
        let plan = try await resolve(["--alert", "x", "--topic", "t", "--key-file", p8, "--team-id", "OTHERTEAM1"])
        guard case .token(let key) = plan.configuration.authentication else {
            Issue.record("token authentication expected")
            return
        }
        #expect(key.keyID == data.keyID && key.teamID == "OTHERTEAM1")
    }

    @Test(
        "usage errors are one line",
        arguments: [
            (["--topic", "t"], "give a payload"),
            (["--alert", "x", "--payload", "{}", "--topic", "t"], "give one payload, not 2"),
            (["--payload", "{", "--topic", "t"], "--payload: not JSON"),
            (["--payload", "[1]", "--topic", "t"], "--payload: not a JSON object"),
            (["--alert", "x"], "give --topic"),
            (["--alert", "x", "--topic", "t", "--repeat", "0"], "--repeat must be at least 1"),
            (["--alert", "x", "--topic", "t", "--rate", "0"], "--rate must be"),
            (["--alert", "x", "--topic", "t", "--server", "localhost:2197"], "is not a server URL"),
            (["--alert", "x", "--topic", "t", "--expiration", "soon"], "--expiration must be"),
            (["--alert", "x", "--topic", "t", "--cert", "c.pem"], "--cert and --cert-key go together"),
            (["--alert", "x", "--topic", "t", "--cert", "c.pem", "--cert-key", "k.pem", "--team-id", "T"], "not both"),
            (["--alert", "x", "--topic", "t", "--key-id", "NOSUCHKEY1"], "no key NOSUCHKEY1"),
        ]
    )
    func usageErrors(arguments: [String], message: String) async throws {
        let data = try await DataDirectory()
        let text = try #require(await failure(arguments, data: data))
        #expect(text.contains(message), "\(text)")
        #expect(!text.contains("\n"))
    }

    @Test("no key anywhere, or several, says what to do")
    func keyDiscovery() async throws {
        let noDirectory = try #require(await failure(["--alert", "x", "--topic", "t"]))
        #expect(
            noDirectory == "no Herald data directory at /nonexistent/herald-data (start `herald serve --data-dir /nonexistent/herald-data` first)"
        )
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("herald-send-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let command = try SendCommand.parse(["--data-dir", empty.path, "--token", Self.token, "--alert", "x", "--topic", "t"])
        await #expect(throws: CLIFailure.self) { _ = try await command.resolve(now: Date()) }
        do {
            _ = try await command.resolve(now: Date())
        } catch let error as CLIFailure {
            #expect(error.description.contains("no provider key") && error.description.contains("herald keys generate"), "\(error)")
        }

        let data = try await DataDirectory()
        let second = try KeysCommand.Generate.parse([
            "--data-dir", data.url.path, "--key-id", "CLIKEY5678", "--team-id", Self.teamID, "--out", data.url.appendingPathComponent("2.p8").path,
        ])
        try await second.run()
        let several = try #require(await failure(["--alert", "x", "--topic", "t"], data: data))
        #expect(several.contains("2 keys in") && several.contains("(CLIKEY1234, CLIKEY5678)"), "\(several)")
        let chosen = try await resolve(["--alert", "x", "--topic", "t", "--key-id", "CLIKEY5678"], data: data)
        guard case .token(let key) = chosen.configuration.authentication else {
            Issue.record("token authentication expected")
            return
        }
        #expect(key.keyID == "CLIKEY5678" && key.teamID == Self.teamID)

        // A key file whose name does not say its id, and no team id to find.
        let unnamed = data.url.appendingPathComponent("2.p8").path
        let noKeyID = try #require(await failure(["--alert", "x", "--topic", "t", "--key-file", unnamed], data: data))
        #expect(noKeyID.contains("give --key-id"), "\(noKeyID)")
        let unknownTeam = try #require(await failure(["--alert", "x", "--topic", "t", "--key-file", unnamed, "--key-id", "UNKNOWNKEY"], data: data))
        #expect(unknownTeam.contains("give --team-id"), "\(unknownTeam)")
    }

    @Test("--server names the server; --url, its old name, still works, but not with --server")
    func serverAlias() async throws {
        let endpoint = APNSProviderClient.Endpoint(host: "127.0.0.1", port: 2195, usesTLS: false)
        let data = try await DataDirectory()
        let server = try await resolve(["--alert", "x", "--topic", "t", "--server", "http://127.0.0.1:2195"], data: data)
        #expect(server.configuration.endpoint == endpoint)
        let old = try await resolve(["--alert", "x", "--topic", "t", "--url", "http://127.0.0.1:2195"], data: data)
        #expect(old.configuration.endpoint == endpoint)
        let both = try #require(await failure(["--alert", "x", "--topic", "t", "--url", "http://a:1", "--server", "http://b:2"], data: data))
        #expect(both == "give --server only (--url is its old name)")
    }

    @Test("keys generate writes the key into <data-dir>/keys, not the current directory")
    func generateIntoDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-send-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await KeysCommand.Generate.parse(["--data-dir", directory.path, "--key-id", "GENKEY1234", "--team-id", Self.teamID]).run()
        let kept = ProviderKeyLocator.keptKeys(in: directory.appendingPathComponent("keys"))
        #expect(kept.map(\.lastPathComponent) == ["AuthKey_GENKEY1234.p8"])
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/AuthKey_GENKEY1234.p8"))
        let mode = try FileManager.default.attributesOfItem(atPath: kept[0].path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let nowhere = try KeysCommand.Generate.parse(["--data-dir", directory.path, "--team-id", Self.teamID, "--no-keep"])
        // "--no-keep needs --out FILE", on standard error; nothing registered or written.
        await #expect(throws: (any Error).self) { try await nowhere.run() }
        #expect(ProviderKeyLocator.keptKeys(in: directory.appendingPathComponent("keys")).count == 1)
    }

    @Test("keys generate --no-keep keeps no copy")
    func noKeep() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-send-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let generate = try KeysCommand.Generate.parse([
            "--data-dir", directory.path, "--team-id", Self.teamID, "--out", directory.appendingPathComponent("k.p8").path, "--no-keep",
        ])
        try await generate.run()
        #expect(ProviderKeyLocator.keptKeys(in: directory.appendingPathComponent("keys")).isEmpty)
    }
}
