import ArgumentParser
import Foundation
import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

@testable import HeraldCLI

/// `herald device --web-app`: Safari's rules on the command line, and the subscription kept across restarts.
@Suite("herald device --web-app: the iPhone rule, the options, the kept subscription", .tier(.unit))
struct DeviceWebAppTests {
    /// A P-256 public key, base64url: a site's VAPID key.
    static let key: String = {
        var generator = SystemRandomNumberGenerator()
        let signer = try? VAPIDSigner(
            rawRepresentation: (0..<32).map { _ in UInt8.random(in: 1...254, using: &generator) },
            subject: "mailto:a@b.example"
        )
        return signer?.publicKey.base64URL ?? ""
    }()

    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-web-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        try await body(url)
    }

    @Test("an iPhone (a device with iOS apps) takes a web app only with --home-screen; the command fails before connecting")
    func iPhoneNeedsHomeScreen() async throws {
        let options = try WebAppOptions.parse(["--web-app", "https://shop.example", "--vapid-public-key", Self.key])
        #expect(throws: CLIFailure.self) { try options.validate(hasApps: true) }
        do {
            try options.validate(hasApps: true)
        } catch let error as CLIFailure {
            #expect(error.description.contains("--home-screen") && !error.description.contains("\n"))
        }
        try options.validate(hasApps: false)
        try WebAppOptions.parse(["--web-app", "https://shop.example", "--vapid-public-key", Self.key, "--home-screen"]).validate(hasApps: true)
        try await Self.withFolder { folder in
            let command = try DeviceCommand.parse([
                "--data-dir", folder.path, "--app", "com.example.chat", "--web-app", "https://shop.example", "--vapid-public-key", Self.key,
            ])
            await #expect(throws: ExitCode.failure) { try await command.run() }
            // Refused before the device was made in the data directory.
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("devices").path))
        }
    }

    @Test("--service-worker without Node is refused at the start in one line, not blamed on the site push after push")
    func serviceWorkerNeedsNode() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("sw-\(UUID().uuidString).js")
        try Data("self.addEventListener('push', () => {});\n".utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let options = try WebAppOptions.parse([
            "--web-app", "https://shop.example", "--vapid-public-key", Self.key, "--service-worker", script.path,
        ])
        #expect(
            throws: CLIFailure("--service-worker needs Node to run \(script.path): install nodejs (apt install nodejs) or set HERALD_NODE")
        ) { try options.validate(hasApps: false, environment: ["PATH": "/nonexistent"]) }
        #expect(throws: CLIFailure.self) { try options.validate(hasApps: false, environment: ["HERALD_NODE": "/nonexistent/node"]) }
        try options.validate(hasApps: false, environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test("--vapid-public-key is needed with --web-app, and the web app options go with --web-app")
    func optionPairs() throws {
        #expect(throws: CLIFailure.self) { try WebAppOptions.parse(["--web-app", "https://shop.example"]).validate(hasApps: false) }
        #expect(throws: CLIFailure.self) { try WebAppOptions.parse(["--home-screen"]).validate(hasApps: false) }
        #expect(throws: CLIFailure.self) {
            try WebAppOptions.parse(["--web-app", "https://shop.example/path", "--vapid-public-key", Self.key]).webApp(keyring: nil)
        }
    }

    @Test("the subscription id and keys are kept in the device's credentials file, beside its id and secret (mode 0600)")
    func keptAcrossRestarts() async throws {
        try await Self.withFolder { folder in
            let file = folder.appendingPathComponent("devices/my-phone.json")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(#"{"id":"d1","name":"my-phone","secret":"s1"}"#.utf8).write(to: file)
            let keyring = WebAppKeyring(file: file)
            let options = try WebAppOptions.parse(["--web-app", "https://Shop.example", "--vapid-public-key", Self.key, "--home-screen"])
            let first = try #require(try options.webApp(keyring: keyring))
            let again = try #require(try options.webApp(keyring: keyring))
            #expect(again.subscriptionID == first.subscriptionID)
            #expect(again.keys.p256dh == first.keys.p256dh && again.keys.auth == first.keys.auth)
            // The restarted app decrypts what was encrypted for the first one.
            let body = try WebPushEncryption.encrypt(Array("hello".utf8), p256dh: first.keys.p256dh, auth: first.keys.auth)
            #expect(try again.keys.decrypt(body) == Array("hello".utf8))
            let object = try #require(try JSONParser.parse(try Data(contentsOf: file)).objectValue)
            #expect(object["id"] == "d1" && object["secret"] == "s1")
            #expect(object["webApps"]?.arrayValue?.count == 1)
            #expect(object["webApps"]?.arrayValue?.first?.objectValue?["origin"] == "https://shop.example")
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // Another key is another subscription.
            let otherKey = try #require(
                try WebAppOptions.parse(["--web-app", "https://shop.example", "--vapid-public-key", Self.otherKey()]).webApp(keyring: keyring)
            )
            #expect(otherKey.subscriptionID != first.subscriptionID)
            // A revoked subscription is forgotten: the next start subscribes anew; the credentials stay.
            try keyring.forget(origin: first.origin, applicationServerKey: first.applicationServerKey.base64URL)
            #expect(try keyring.entry(origin: first.origin, applicationServerKey: first.applicationServerKey.base64URL) == nil)
            let after = try #require(try JSONParser.parse(try Data(contentsOf: file)).objectValue)
            #expect(after["id"] == "d1" && after["webApps"]?.arrayValue?.count == 1)
        }
    }

    @Test("a web push message's line says what it is, not \"(no aps)\": only the web app can read it")
    func notificationSummary() {
        let payload = WebPushStoredMessage(encoding: .aes128gcm, body: Array(repeating: 1, count: 120), urgency: .high, ttl: WebPushTTL(seconds: 60))
            .payload
        let summary = DeviceOutput.summary(ofPayload: try? JSONParser.parse(payload))
        #expect(summary == "web push message (aes128gcm, 120 bytes encrypted, urgency high)")
    }

    @Test("--vapid-public-key takes the PEM file herald send --vapid-key takes: its public key is the applicationServerKey")
    func keyFromPEM() async throws {
        try await Self.withFolder { folder in
            let pem = folder.appendingPathComponent("vapid.pem")
            let key = try #require(Self.pem.data(using: .utf8))
            try key.write(to: pem)
            let expected = try VAPIDSigner(pemRepresentation: Self.pem, subject: "mailto:a@b.example").publicKey.base64URL
            #expect(try WebAppOptions.applicationServerKey(pem.path) == expected)
            #expect(try WebAppOptions.applicationServerKey(Self.key) == Self.key)
            #expect(throws: CLIFailure.self) { try WebAppOptions.applicationServerKey(folder.appendingPathComponent("none.pem").path) }
        }
    }

    /// A P-256 private key in SEC 1 PEM, as `openssl ecparam -name prime256v1 -genkey -noout` writes it.
    static let pem = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIFnofn/6mZz73FPurDpuUF7Cx11fvZPbTvGR/9NIRauloAoGCCqGSM49
        AwEHoUQDQgAE9t1MAnDTtMkKGds9IzP9hec9DBuSquv7gkAlzwW+TErUUQMGe9s5
        SzbNDaG3mhHowcFO5Ive/M4f8ow2VbI3WQ==
        -----END EC PRIVATE KEY-----
        """

    static func otherKey() throws -> String {
        var generator = SystemRandomNumberGenerator()
        return try VAPIDSigner(rawRepresentation: (0..<32).map { _ in UInt8.random(in: 1...254, using: &generator) }, subject: "mailto:a@b.example")
            .publicKey.base64URL
    }
}
