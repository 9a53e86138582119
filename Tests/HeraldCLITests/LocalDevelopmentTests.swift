import Foundation
import HeraldCore
import HeraldStore
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// What `herald serve`, `herald device` and `herald send` do without credentials, on a data directory.
@Suite("Local development: development key, local device, the only token", .tier(.unit))
struct LocalDevelopmentTests {
    static func withData(_ body: (DataDirectoryOptions) async throws -> Void) async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        try await body(try DataDirectoryOptions.parse(["--data-dir", url.path]))
    }

    @Test("serve makes one development key on a data directory without keys, kept where send finds it")
    func developmentKey() async throws {
        try await Self.withData { data in
            let store = try await openStore(data)
            do {
                let made = try #require(
                    try await LocalDevelopment.ensureDevelopmentKey(store: store, keysDirectory: data.keysDirectory, clock: SystemWallClock())
                )
                #expect(made.file.lastPathComponent == "AuthKey_\(made.keyID).p8")
                #expect(FileManager.default.fileExists(atPath: made.file.path))
                let keys = try await store.signingKeys()
                #expect(keys.map(\.keyID) == [made.keyID] && keys.first?.teamID == "HERALDTEAM")
                // The second start finds it: nothing new.
                let again = try await LocalDevelopment.ensureDevelopmentKey(store: store, keysDirectory: data.keysDirectory, clock: SystemWallClock())
                #expect(again == nil)
                #expect(try await store.signingKeys().count == 1)
            } catch {
                await store.shutdown()
                throw error
            }
            await store.shutdown()
            // `herald send` resolves it without key options.
            let send = try SendCommand.parse([
                "--data-dir", data.dataDirectory, "--token", String(repeating: "ab", count: 32), "--topic", "t", "--alert", "x",
            ])
            let plan = try await send.resolve(now: Date())
            guard case .token(let key) = plan.configuration.authentication else {
                Issue.record("expected token auth")
                return
            }
            #expect(key.teamID == "HERALDTEAM")
        }
    }

    @Test("a data directory whose store has a key (registered with `keys add`) gets no development key")
    func noDevelopmentKeyWhenKeysExist() async throws {
        try await Self.withData { data in
            let out = data.url.appendingPathComponent("own.p8").path
            try await KeysCommand.Generate.parse(["--data-dir", data.dataDirectory, "--team-id", "OWNTEAM123", "--out", out, "--no-keep"]).run()
            let store = try await openStore(data)
            let made = try await LocalDevelopment.ensureDevelopmentKey(store: store, keysDirectory: data.keysDirectory, clock: SystemWallClock())
            await store.shutdown()
            #expect(made == nil)
            #expect(ProviderKeyLocator.keptKeys(in: data.keysDirectory).isEmpty)
        }
    }

    @Test("serve's --no-development-key turns it off")
    func flag() throws {
        #expect(try ServeCommand.parse([]).developmentKey)
        #expect(try !ServeCommand.parse(["--no-development-key"]).developmentKey)
    }

    @Test("device without credentials: created once in the data directory, its credentials kept with mode 0600")
    func localDevice() async throws {
        try await Self.withData { data in
            let first = try await LocalDevelopment.deviceCredentials(name: "my-phone", data: data)
            #expect(first.isNew)
            let file = LocalDevelopment.credentialsFile(name: "my-phone", data: data)
            let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            let second = try await LocalDevelopment.deviceCredentials(name: "my-phone", data: data)
            #expect(!second.isNew && second.id == first.id && second.secret == first.secret)
            let store = try await openStore(data)
            let authenticated = try await store.authenticateDevice(id: first.id, secret: first.secret)
            let devices = try await store.devices()
            await store.shutdown()
            #expect(authenticated?.name == "my-phone")
            #expect(devices.count == 1)
            // A name with a slash cannot leave the folder.
            #expect(LocalDevelopment.credentialsFile(name: "../x/y", data: data).deletingLastPathComponent().lastPathComponent == "devices")
        }
    }

    @Test("a damaged credentials file is one clear line")
    func damagedCredentials() async throws {
        try await Self.withData { data in
            let file = LocalDevelopment.credentialsFile(name: "broken", data: data)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("not json".utf8).write(to: file)
            await #expect(throws: CLIFailure.self) { try await LocalDevelopment.deviceCredentials(name: "broken", data: data) }
        }
    }

    @Test("send without --token: the only device with the app, else a clear line")
    func onlyToken() async throws {
        try await Self.withData { data in
            await #expect(throws: CLIFailure("give --token (there is no Herald data directory at \(data.dataDirectory) to find one in)")) {
                _ = try await LocalDevelopment.onlyToken(topic: "com.example.app", data: data)
            }
            let phone = try await LocalDevelopment.deviceCredentials(name: "phone", data: data)
            await #expect(throws: CLIFailure("no device has com.example.app (run `herald device --app com.example.app`), or give --token")) {
                _ = try await LocalDevelopment.onlyToken(topic: "com.example.app", data: data)
            }
            let store = try await openStore(data)
            let registration = try await store.registerAppToken(deviceID: phone.id, bundleID: "com.example.app", environment: .sandbox)
            await store.shutdown()
            #expect(try await LocalDevelopment.onlyToken(topic: "com.example.app", data: data).token == registration.token.token)
            // The VoIP topic names the same app.
            #expect(try await LocalDevelopment.onlyToken(topic: "com.example.app.voip", data: data).token == registration.token.token)

            let tablet = try await LocalDevelopment.deviceCredentials(name: "tablet", data: data)
            let again = try await openStore(data)
            _ = try await again.registerAppToken(deviceID: tablet.id, bundleID: "com.example.app", environment: .sandbox)
            await again.shutdown()
            await #expect(throws: CLIFailure("2 devices have com.example.app (phone, tablet): give --token (see `herald devices list`)")) {
                _ = try await LocalDevelopment.onlyToken(topic: "com.example.app", data: data)
            }
        }
    }

    @Test("send without --token on a device with an activity type: counts devices, picks the token by kind and type")
    func onlyTokenByKind() async throws {
        try await Self.withData { data in
            let phone = try await LocalDevelopment.deviceCredentials(name: "la-phone", data: data)
            let app = "com.example.delivery"
            let topic = "com.example.delivery.push-type.liveactivity"
            func activityToken(_ kind: TokenKind, _ type: String, _ byte: String) throws -> ActivityTokenRequest {
                let token = try #require(DeviceToken(hex: String(repeating: byte, count: 32)))
                return ActivityTokenRequest(deviceID: phone.id, bundleID: app, environment: .sandbox, kind: kind, token: token, activityType: type)
            }
            let store = try await openStore(data)
            let device = try await store.registerAppToken(deviceID: phone.id, bundleID: app, environment: .sandbox).token.token
            _ = try await store.registerActivityToken(try activityToken(.pushToStart, "DeliveryAttributes", "a1"), limit: 64)
            await store.shutdown()
            await #expect(
                throws: CLIFailure(
                    "no device has an activity token of \(app) (start an activity with `herald send --event start … --input-push-token`), or give --token"
                )
            ) {
                _ = try await LocalDevelopment.onlyToken(topic: topic, kind: .activity, data: data)
            }
            let again = try await openStore(data)
            _ = try await again.registerActivityToken(try activityToken(.activity, "DeliveryAttributes", "b2"), limit: 64)
            await again.shutdown()

            // One device with three kinds of token is one device: each kind has one.
            #expect(try await LocalDevelopment.onlyToken(topic: app, data: data).token == device)
            let start = try await LocalDevelopment.onlyToken(topic: topic, kind: .pushToStart, data: data)
            #expect(start.token.hex == String(repeating: "a1", count: 32) && start.activityType == "DeliveryAttributes")
            #expect(try await LocalDevelopment.onlyToken(topic: topic, kind: .activity, data: data).token.hex == String(repeating: "b2", count: 32))
            await #expect(
                throws: CLIFailure(
                    "no device has a push-to-start token of \(app) for GameAttributes (run `herald device --manifest FILE` with an activity type for it, docs/device-manifest.md), or give --token"
                )
            ) {
                _ = try await LocalDevelopment.onlyToken(topic: topic, kind: .pushToStart, activityType: "GameAttributes", data: data)
            }

            // A second activity type and a second activity on the same device: one device, several tokens of the kind.
            let third = try await openStore(data)
            _ = try await third.registerActivityToken(try activityToken(.pushToStart, "GameAttributes", "c3"), limit: 64)
            _ = try await third.registerActivityToken(try activityToken(.activity, "DeliveryAttributes", "d4"), limit: 64)
            await third.shutdown()
            await #expect(
                throws: CLIFailure(
                    "la-phone has 2 push-to-start tokens of \(app) (DeliveryAttributes, GameAttributes): give --attributes-type or --token (see `herald devices list`)"
                )
            ) {
                _ = try await LocalDevelopment.onlyToken(topic: topic, kind: .pushToStart, data: data)
            }
            #expect(
                try await LocalDevelopment.onlyToken(topic: topic, kind: .pushToStart, activityType: "GameAttributes", data: data).token.hex
                    == String(repeating: "c3", count: 32)
            )
            await #expect(throws: CLIFailure("la-phone has 2 activity tokens of \(app): give --token (see `herald devices list`)")) {
                _ = try await LocalDevelopment.onlyToken(topic: topic, kind: .activity, data: data)
            }

            // Two devices: counted once each.
            let tablet = try await LocalDevelopment.deviceCredentials(name: "tablet", data: data)
            let fourth = try await openStore(data)
            _ = try await fourth.registerAppToken(deviceID: tablet.id, bundleID: app, environment: .sandbox)
            await fourth.shutdown()
            await #expect(throws: CLIFailure("2 devices have \(app) (la-phone, tablet): give --token (see `herald devices list`)")) {
                _ = try await LocalDevelopment.onlyToken(topic: app, data: data)
            }
        }
    }
}
