import ArgumentParser
import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import HeraldWebPush
import Testing

@testable import HeraldCLI

/// `herald send --web-push`: the command against a local server that records what it is sent — the body decrypts with
/// the subscription's keys, VAPID verifies for the endpoint's origin, the headers are as given; bad input sends nothing.
@Suite("herald send --web-push", .serialized, .tier(.inProcess))
struct SendWebPushTests {
    /// A P-256 key as `openssl ecparam -name prime256v1 -genkey` writes it.
    static let vapidPEM = """
        -----BEGIN EC PARAMETERS-----
        BggqhkjOPQMBBw==
        -----END EC PARAMETERS-----
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIOX/G7uZtu9/8yyM59KkeFJe9Hl0lUANU3q3Vcb8rDkIoAoGCCqGSM49
        AwEHoUQDQgAEemw3prux4m82Xp8mEQC4De8rFC13Mfm38Pev6j4PzUyEOsz8qFk0
        aZGkf8hT+MdbbdzXDloF+n/65hPAhYRp2Q==
        -----END EC PRIVATE KEY-----
        """

    /// A folder with a subscription to `server`, the VAPID key, and the subscription's keys to decrypt with.
    struct Fixture {
        let directory: URL
        let keys = WebPushSubscriptionKeys()
        let server: CapturingHTTPServer

        init(server: CapturingHTTPServer) throws {
            self.server = server
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-webpush-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try write("subscription.json", subscription(endpoint: endpoint))
            try write("vapid.pem", SendWebPushTests.vapidPEM)
        }

        var endpoint: String { "http://127.0.0.1:\(server.port)/push/sub-1" }
        var origin: String { "http://127.0.0.1:\(server.port)" }

        func subscription(endpoint: String, p256dh: String? = nil) -> String {
            #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh ?? keys.p256dh)","auth":"\#(keys.auth)"}}"#
        }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// `herald send --web-push subscription.json --vapid-key vapid.pem --subject mailto:ops@example.com` and more.
        func command(_ arguments: [String], subscription: String = "subscription.json") throws -> SendCommand {
            try SendCommand.parse(
                ["--data-dir", directory.path, "--web-push", path(subscription), "--vapid-key", path("vapid.pem"), "--timeout", "10"]
                    + arguments
            )
        }

        func send(_ arguments: [String]) async throws -> (WebPushAnswer, CapturingHTTPServer.Request) {
            let command = try command(arguments)
            let answer = try await command.sendWebPush(command.resolveWebPush(now: Date()))
            let request = try #require(server.requests.last)
            return (answer, request)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func withFixture(
        status: Int = 201,
        headers: [(String, String)] = [],
        body: String = "",
        _ test: (Fixture) async throws -> Void
    )
        async throws
    {
        let server = try CapturingHTTPServer(
            answer: .init(status: status, headers: headers.map { (name: $0.0, value: $0.1) } + [("Content-Type", "application/json")], body: body)
        )
        let fixture = try Fixture(server: server)
        defer {
            server.stop()
            fixture.remove()
        }
        try await test(fixture)
    }

    @Test("the body decrypts to the payload, VAPID verifies for the endpoint's origin, TTL, Urgency and Topic as given")
    func sends() async throws {
        try await Self.withFixture(headers: [("Location", "http://127.0.0.1/m/42")]) { fixture in
            let payload = #"{"title":"Order 42","url":"https://example.com/orders/42"}"#
            let (answer, request) = try await fixture.send([
                "--subject", "mailto:ops@example.com", "--payload", payload, "--ttl", "60", "--urgency", "high", "--topic", "order-42",
            ])
            #expect(answer.status == 201)
            #expect(answer.location == "http://127.0.0.1/m/42")
            #expect(answer.line.hasPrefix("201  location http://127.0.0.1/m/42  "))
            #expect(request.method == "POST")
            #expect(request.path == "/push/sub-1")
            #expect(request.value("ttl") == "60")
            #expect(request.value("urgency") == "high")
            #expect(request.value("topic") == "order-42")
            #expect(request.value("content-encoding") == "aes128gcm")
            #expect(try fixture.keys.decrypt(request.body) == Array(payload.utf8))
            let signer = try VAPIDSigner(pemRepresentation: Self.vapidPEM, subject: "")
            let identity = try VAPIDVerifier().verify(
                authorization: request.value("authorization"),
                cryptoKey: nil,
                subscriptionKey: signer.publicKey,
                origin: fixture.origin,
                nowSeconds: Int64(Date().timeIntervalSince1970)
            ).get()
            #expect(identity.subject == "mailto:ops@example.com")
            #expect(identity.audience == fixture.origin)
            #expect(identity.expiration - Date().timeIntervalSince1970 > 11 * 3600)
        }
    }

    @Test("--declarative: Safari's form from --alert-title, --alert-body and --navigate, or around a payload; TTL 28 days by default")
    func declarative() async throws {
        try await Self.withFixture { fixture in
            let options = ["--subject", "https://example.com/contact", "--declarative"]
            let (_, fromOptions) = try await fixture.send(
                options + ["--alert-title", "Hi", "--alert-body", "Your \"order\" shipped", "--navigate", "https://example.com/o/1"]
            )
            #expect(
                String(decoding: try fixture.keys.decrypt(fromOptions.body), as: UTF8.self)
                    == #"{"web_push":8030,"notification":{"title":"Hi","body":"Your \"order\" shipped","navigate":"https://example.com/o/1"}}"#
            )
            #expect(fromOptions.value("ttl") == "2419200")
            #expect(fromOptions.value("urgency") == nil)
            #expect(fromOptions.value("topic") == nil)
            let (_, wrapped) = try await fixture.send(options + ["--payload", #"{"title":"A","app_badge":"3"}"#])
            #expect(
                String(decoding: try fixture.keys.decrypt(wrapped.body), as: UTF8.self)
                    == #"{"web_push":8030,"notification":{"title":"A","app_badge":"3"}}"#
            )
            let whole = #"{"web_push":8030,"notification":{"title":"B"},"mutable":true}"#
            let (_, asGiven) = try await fixture.send(options + ["--payload", whole])
            #expect(try fixture.keys.decrypt(asGiven.body) == Array(whole.utf8))
            let (_, plain) = try await fixture.send(["--subject", "mailto:ops@example.com", "--alert", "Hello", "--ttl", "0"])
            #expect(String(decoding: try fixture.keys.decrypt(plain.body), as: UTF8.self) == #"{"title":"Hello"}"#)
            #expect(plain.value("ttl") == "0")
        }
    }

    @Test("a refusal: status, reason and explanation in one line and in JSON; exit status 1")
    func refusal() async throws {
        let explanation = #"VAPID sub "mailto:dev@localhost": a mailto at localhost is refused"#
        try await Self.withFixture(status: 403, headers: [("herald-explanation", explanation)], body: #"{"reason":"BadJwtToken"}"#) { fixture in
            let (answer, _) = try await fixture.send(["--subject", "mailto:dev@localhost", "--alert", "Hi"])
            #expect(answer.status == 403)
            #expect(answer.reason == "BadJwtToken")
            #expect(answer.explanation == explanation)
            #expect(answer.line.hasPrefix("403 BadJwtToken  \(explanation)  "))
            let json = try #require(try JSONParser.parse(Array(answer.jsonLine.utf8)).objectValue)
            #expect(json["reason"]?.stringValue == "BadJwtToken")
            #expect(json["explanation"]?.stringValue == explanation)
            await #expect(throws: ExitCode.failure) { try await fixture.command(["--subject", "mailto:dev@localhost", "--alert", "Hi"]).run() }
            #expect(fixture.server.requests.count == 2)
        }
    }

    @Test("bad input: one line naming what is wrong, and nothing sent")
    func badInput() async throws {
        try await Self.withFixture { fixture in
            let good = ["--subject", "mailto:ops@example.com", "--alert", "Hi"]
            try fixture.write("not-json.json", "endpoint: https://example.com")
            try fixture.write("no-keys.json", #"{"endpoint":"\#(fixture.endpoint)"}"#)
            try fixture.write("no-auth.json", #"{"endpoint":"\#(fixture.endpoint)","keys":{"p256dh":"\#(fixture.keys.p256dh)"}}"#)
            try fixture.write("not-a-point.json", fixture.subscription(endpoint: fixture.endpoint, p256dh: "BAAAAAAA"))
            try fixture.write("ftp.json", fixture.subscription(endpoint: "ftp://127.0.0.1/push/x"))
            try fixture.write("huge.json", String(repeating: " ", count: 70_000) + "{}")
            let cases: [(subscription: String, arguments: [String], message: String)] = [
                ("not-json.json", good, "not a JSON object"),
                ("no-keys.json", good, "no \"keys\" object"),
                ("no-auth.json", good, "no \"keys.auth\" string"),
                ("not-a-point.json", good, "p256dh"),
                ("ftp.json", good, "is not an https:// or http:// URL"),
                ("huge.json", good, "over 65536 bytes"),
                ("missing.json", good, "missing.json"),
                ("subscription.json", ["--alert", "Hi"], "give --subject: Apple refuses a push without a VAPID sub"),
                ("subscription.json", good + ["--urgency", "urgent"], "--urgency must be very-low, low, normal or high"),
                ("subscription.json", good + ["--topic", "order 42"], "--topic must be at most 32 URL-safe base64 characters"),
                ("subscription.json", good + ["--topic", String(repeating: "a", count: 33)], "--topic must be at most 32"),
                ("subscription.json", good + ["--ttl=-1"], "--ttl must be 0 or more seconds"),
                ("subscription.json", good + ["--token", "ab"], "--token is for APNs, not --web-push"),
                ("subscription.json", good + ["--server", "http://127.0.0.1:1"], "--server is for APNs, not --web-push"),
                ("subscription.json", good + ["--key-file", "AuthKey_ABC.p8"], "--key-file, --key-id or --team-id is for APNs"),
                ("subscription.json", good + ["--payload", "{}"], "give one payload"),
                ("subscription.json", ["--subject", "mailto:ops@example.com"], "give a payload"),
                ("subscription.json", good + ["--alert-title", "B"], "give --alert or --alert-title, not both"),
                (
                    "subscription.json", ["--subject", "mailto:a@example.com", "--declarative", "--alert-body", "x"],
                    "--declarative needs --alert-title"
                ),
                (
                    "subscription.json", ["--subject", "mailto:a@example.com", "--declarative", "--payload", "[1]"],
                    "--declarative needs a JSON object"
                ),
            ]
            for (subscription, arguments, message) in cases {
                let command = try fixture.command(arguments, subscription: subscription)
                let error = try #require(throws: CLIFailure.self) { try command.resolveWebPush(now: Date()) }
                #expect(error.description.contains(message), "\(subscription) \(arguments): \(error.description)")
                #expect(!error.description.contains("\n"))
            }
            for key in ["", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "not a key"] {
                try fixture.write("vapid.pem", key)
                let error = try #require(throws: CLIFailure.self) { try fixture.command(good).resolveWebPush(now: Date()) }
                #expect(error.description.contains("not a P-256 private key in PEM"))
            }
            try fixture.write("vapid.pem", Self.vapidPEM)
            await #expect(throws: ExitCode.failure) { try await fixture.command(good, subscription: "no-keys.json").run() }
            let stray = try SendCommand.parse(["--data-dir", fixture.directory.path, "--vapid-key", "k.pem", "--alert", "Hi"])
            await #expect(throws: ExitCode.failure) { try await stray.run() }
            #expect(fixture.server.requests.isEmpty)
        }
    }

    @Test("no push service at the endpoint: one line naming its origin")
    func noServer() async throws {
        try await Self.withFixture { fixture in
            fixture.server.stop()
            let command = try fixture.command(["--subject", "mailto:ops@example.com", "--alert", "Hi"])
            let error = try await #require(throws: CLIFailure.self) { try await command.sendWebPush(command.resolveWebPush(now: Date())) }
            #expect(error.description.hasPrefix("no answer from the push service at \(fixture.origin) ("))
        }
    }
}
