import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import HeraldWebPush
import Testing

/// Web push end to end with real processes (issue 39): `herald serve` is the push service, `herald device --web-app`
/// a Safari web app that subscribes and prints its subscription, and pywebpush (PyPI, unmodified) the site's server.
@Suite("End to end: pywebpush → herald serve → a web app on herald device", .serialized, .tier(.process))
struct WebPushEndToEndTests {
    static let origin = "https://shop.example"

    /// The site: its VAPID key pair, the private key in a PEM file as pywebpush reads it.
    struct Site {
        let key = P256.Signing.PrivateKey()
        let keyFile: URL
        var publicKey: String { VAPIDPublicKey(rawRepresentation: key.publicKey.x963Representation)!.base64URL }

        init(in directory: URL) throws {
            keyFile = directory.appendingPathComponent("vapid-\(UUID().uuidString).pem")
            try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        }

        /// One push through pywebpush to `subscription` (its `toJSON()` text).
        func send(
            _ subscription: String,
            subject: String = "mailto:ops@example.com",
            data: [String],
            ttl: Int = 3600,
            headers: [String] = [],
            keyFile: URL? = nil
        ) async throws -> PyWebPushAnswer {
            var arguments = ["--subscription", subscription, "--vapid-key", (keyFile ?? self.keyFile).path, "--sub", subject]
            arguments += data + ["--ttl", String(ttl)]
            for header in headers { arguments += ["--header", header] }
            return try await Interop.pywebpush(arguments).answer
        }
    }

    /// The repository's example service worker (Examples/WebPush/sw.js).
    static var exampleServiceWorker: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/WebPush/sw.js").path
    }

    /// Starts `herald device` with the web app and returns the process and the subscription line it printed.
    static func startWebApp(
        _ workspace: HeraldWorkspace,
        _ server: HeraldServeProcess,
        device: (id: String, secret: String),
        site: Site
    ) async throws -> (process: ExternalProcess, subscription: String) {
        let process = try workspace.start([
            "device", "--server", server.deviceLinkURL, "--id", device.id, "--secret", device.secret, "--web-app", origin,
            "--vapid-public-key", site.publicKey, "--service-worker", exampleServiceWorker,
            // The data directory keeps the web app's subscription across restarts (<data-dir>/devices/<ID>.web-apps.json).
            "--data-dir", workspace.data.path,
        ])
        let printed = try await process.waitForOutput(deadline: .seconds(60)) { $0.contains(#""endpoint""#) }
        let line = try #require(printed.split(separator: "\n").first { $0.contains(#""endpoint""#) && $0.contains(#""p256dh""#) })
        return (process, String(line))
    }

    /// A workspace with `herald serve`, a device `mac` and a site, the device running the site's web app; `body` gets
    /// them and the subscription's `toJSON()` line. The device and the server are stopped after it.
    static func withWebApp(
        serveOptions: [String] = [],
        _ body: (HeraldWorkspace, HeraldServeProcess, DeviceCredentials, Site, ExternalProcess, String) async throws -> Void
    ) async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace, options: serveOptions)
            let mac = try await workspace.addDevice("mac")
            let site = try Site(in: workspace.data)
            let (device, subscription) = try await startWebApp(workspace, server, device: (mac.id, mac.secret), site: site)
            try await body(workspace, server, mac, site, device, subscription)
            device.killAndWait()
            _ = try await server.stop()
        }
    }

    /// The `apns-id` at the end of a `201`'s `Location`.
    static func apnsID(_ answer: PyWebPushAnswer) throws -> String {
        let location = try #require(answer.location)
        return String(try #require(location.split(separator: "/").last))
    }

    @Test("a push from pywebpush is 201, durable, delivered, decrypted and shown by the web app's sw.js; the trace says so")
    func shownBySite() async throws {
        try await Self.withWebApp { workspace, server, mac, site, device, subscription in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(subscription.utf8)) as? [String: Any])
            let endpoint = try #require(object["endpoint"] as? String)
            #expect(endpoint.hasPrefix("http://127.0.0.1:") && endpoint.contains("/push/"), "\(subscription)")
            #expect(object["expirationTime"] is NSNull)

            let data = #"{"title":"Order shipped","body":"Arrives Tuesday","url":"/orders/42","tag":"order-42"}"#
            let answer = try await site.send(subscription, data: ["--data", data], headers: ["Topic: order-42"])
            #expect(answer.status == 201, "\(answer)")
            let apnsID = try Self.apnsID(answer)
            let traced = try await server.waitForNotification(apnsID, "shown") { $0.kinds.contains("shown") }
            let kinds = traced.kinds
            #expect(kinds.first == "accepted", "\(traced)")
            #expect(kinds.contains("decrypted"), "\(traced)")
            #expect(
                (kinds.firstIndex(of: "decrypted") ?? .max) < (kinds.firstIndex(of: "shown") ?? -1),
                "decrypted, then shown: \(traced)"
            )
            let shownDetail = try #require(traced.detail(of: "shown"))
            #expect("\(shownDetail)".contains("Order shipped"), "\(traced)")
            let metrics = try await server.metrics()
            let accepted = metrics.split(separator: "\n").first { $0.hasPrefix("herald_web_push_requests_total{") && $0.contains(#"status="201""#) }
            #expect(accepted?.hasSuffix(" 1") == true, "\(metrics)")
        }
    }

    @Test(
        "the user removes the web app's permission (removePermission): by default pywebpush still gets 201 and the trace says not-shown; with --web-push-removed-permission unregistered, 410",
        arguments: [false, true]
    )
    func removedPermission(answersUnregistered: Bool) async throws {
        let options = answersUnregistered ? ["--web-push-removed-permission", "unregistered"] : []
        try await Self.withWebApp(serveOptions: options) { workspace, server, mac, site, device, subscription in
            let data = #"{"title":"Before","body":"allowed"}"#
            let before = try await site.send(subscription, data: ["--data", data])
            #expect(before.status == 201, "\(before)")
            _ = try await server.waitForNotification(try Self.apnsID(before), "shown") { $0.kinds.contains("shown") }

            // The console's button, or any test: the inspection API's interaction, run by the device.
            let (status, answer) = try await server.webPost(
                "/api/v1/devices/\(mac.id)/interactions",
                json: #"{"kind":"removePermission","bundleID":"\#(Self.origin)"}"#
            )
            #expect(status == 200, "\(status) \(answer ?? [:])")
            let (_, screen) = try await server.inspect("/api/v1/devices/\(mac.id)/screen")
            let webApps = ((screen?["screen"] as? [String: Any])?["webApps"] as? [[String: Any]]) ?? []
            #expect(webApps.first?["permission"] as? String == "removed", "\(screen ?? [:])")

            if answersUnregistered {
                // The device told the push service: the endpoint answers 410 from then on, and nothing is stored.
                try await eventually("410 once the device unsubscribed", within: .seconds(60)) { () -> PyWebPushAnswer? in
                    let answer = try await site.send(subscription, data: ["--data", #"{"title":"After"}"#])
                    return answer.status == 410 ? answer : nil
                }
            } else {
                // As Apple's is reported to: 201, delivered, and dropped by the browser; the trace says why.
                let after = try await site.send(subscription, data: ["--data", #"{"title":"After","body":"dropped"}"#])
                #expect(after.status == 201, "\(after)")
                let traced = try await server.waitForNotification(try Self.apnsID(after), "not-shown") { $0.kinds.contains("not-shown") }
                #expect(!traced.kinds.contains("shown"), "\(traced)")
                #expect((traced.detail(of: "not-shown")?["reason"] as? String)?.contains("removed the web app's permission") == true, "\(traced)")
                let (_, again) = try await server.inspect("/api/v1/devices/\(mac.id)/screen")
                let apps = ((again?["screen"] as? [String: Any])?["webApps"] as? [[String: Any]]) ?? []
                // Not a silent push of the site's: the subscription is not counted toward revocation.
                #expect(apps.first?["silentPushes"] as? Int == 0, "\(again ?? [:])")
            }
        }
    }

    @Test("Safari's refusals through pywebpush: mailto at localhost and another key are 403 BadJwtToken, 4097 bytes 413; the refused trace explains")
    func refusals() async throws {
        try await Self.withWebApp { workspace, server, mac, site, device, subscription in

            let localhost = try await site.send(subscription, subject: "mailto:dev@localhost", data: ["--data", "{}"])
            #expect(localhost.status == 403, "\(localhost)")
            #expect(localhost.body.contains(#""reason":"BadJwtToken""#), "\(localhost)")

            let other = try Site(in: workspace.data)
            let otherKey = try await site.send(subscription, data: ["--data", "{}"], keyFile: other.keyFile)
            #expect(otherKey.status == 403, "\(otherKey)")

            let tooLarge = try await site.send(subscription, data: ["--data-length", "4080"])
            #expect(tooLarge.status == 413, "\(tooLarge)")
            #expect(tooLarge.body.contains("PayloadTooLarge"), "\(tooLarge)")

            // The refusal's trace: curl gets the apns-id pywebpush does not print, and the inspection API explains it.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(subscription.utf8)) as? [String: Any])
            let endpoint = try #require(object["endpoint"] as? String)
            let curl = try await ExternalProcess.run(
                "curl",
                ["--silent", "--show-error", "--include", "--max-time", "30", "-X", "POST", "-H", "TTL: 60", endpoint],
                deadline: .seconds(60)
            )
            #expect(curl.stdout.contains(" 403"), "\(curl)")
            let apnsIDLine = try #require(curl.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("apns-id:") })
            let apnsID = apnsIDLine.dropFirst("apns-id:".count).trimmingCharacters(in: .whitespaces)
            let (status, traceObject) = try await server.inspect("/api/v1/notifications/\(apnsID)/trace")
            #expect(status == 200)
            let refused = TracedNotification(try #require(traceObject))
            #expect(refused.kinds == ["refused"], "\(refused)")
            #expect((refused.detail(of: "refused")?["explanation"] as? String)?.contains("no Authorization header") == true, "\(refused)")
        }
    }

    @Test("while the web app's device is offline: TTL 0 expires unshown; Topic replaces; the restarted device shows the newer")
    func offline() async throws {
        try await Self.withWebApp { workspace, server, mac, site, device, subscription in
            device.killAndWait()
            try await server.waitUntil(deviceID: mac.id, isOnline: false)

            let nowOrNever = try await site.send(subscription, data: ["--data", #"{"title":"Now or never"}"#], ttl: 0)
            #expect(nowOrNever.status == 201, "\(nowOrNever)")
            let expired = try await server.waitForNotification(try Self.apnsID(nowOrNever), "expired") { $0.kinds.contains("expired") }
            #expect(!expired.kinds.contains("shown"), "\(expired)")

            let first = try await site.send(subscription, data: ["--data", #"{"title":"First"}"#], headers: ["Topic: order-42"])
            let second = try await site.send(subscription, data: ["--data", #"{"title":"Second"}"#], headers: ["Topic: order-42"])
            #expect(first.status == 201 && second.status == 201, "\(first) \(second)")
            let replaced = try await server.waitForNotification(try Self.apnsID(first), "replaced") { $0.kinds.contains("replaced") }
            #expect(replaced.state == "replaced", "\(replaced)")

            // The same device again: its web app keeps its subscription (its keyring), so it is sent what waits.
            let (again, resubscribed) = try await Self.startWebApp(workspace, server, device: (mac.id, mac.secret), site: site)
            #expect(resubscribed == subscription)
            let shown = try await server.waitForNotification(try Self.apnsID(second), "shown") { $0.kinds.contains("shown") }
            #expect("\(shown.detail(of: "shown") ?? [:])".contains("Second"), "\(shown)")
            let firstAfter = try await server.notification(try Self.apnsID(first))
            #expect(firstAfter?.kinds.contains("shown") == false, "\(String(describing: firstAfter))")
            again.killAndWait()
        }
    }

    @Test("header-level checks through curl, HTTP/1.1 and h2c: each malformed header answered with Apple's status and reason")
    func curlHeaders() async throws {
        try await Self.withWebApp { workspace, server, mac, site, device, subscription in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(subscription.utf8)) as? [String: Any])
            let endpoint = try #require(object["endpoint"] as? String)
            let keys = try #require(object["keys"] as? [String: String])
            let signer = VAPIDSigner(privateKey: site.key, subject: "mailto:ops@example.com")
            let authorization = try signer.authorization(endpoint: endpoint, nowSeconds: Int64(Date().timeIntervalSince1970))
            let body = workspace.data.appendingPathComponent("body-\(UUID().uuidString)")
            let encrypted = try WebPushEncryption.encrypt(
                Array(#"{"title":"curl"}"#.utf8),
                p256dh: try #require(keys["p256dh"]),
                auth: try #require(keys["auth"])
            )
            try Data(encrypted).write(to: body)
            let empty = workspace.data.appendingPathComponent("empty-\(UUID().uuidString)")
            try Data().write(to: empty)
            let valid = ["Authorization: \(authorization)", "TTL: 60", "Content-Encoding: aes128gcm"]
            let cases: [(headers: [String], file: URL, status: Int, reason: String?)] = [
                (valid, body, 201, nil),
                (valid + ["Urgency: High", "Topic: order-42"], body, 201, nil),
                (valid.map { $0.hasPrefix("TTL") ? "TTL: -1" : $0 }, body, 400, "BadExpirationDate"),
                (valid + ["TTL: 30"], body, 400, "DuplicateHeaders"),
                (valid + ["Urgency: urgent"], body, 400, "BadPriority"),
                (valid + ["Topic: order 42"], body, 400, "BadCollapseId"),
                (valid + ["Topic: \(String(repeating: "t", count: 33))"], body, 400, "BadCollapseId"),
                (valid.filter { !$0.hasPrefix("Content-Encoding") }, body, 415, "UnsupportedContentEncoding"),
                (valid, empty, 400, "PayloadEmpty"),
                (valid.map { $0.hasPrefix("Authorization") ? "Authorization: Bearer x" : $0 }, body, 403, "BadJwtToken"),
            ]
            for http in ["--http1.1", "--http2-prior-knowledge"] {
                for test in cases {
                    var arguments = [
                        "--silent", "--show-error", "--include", "--max-time", "30", http, "-X", "POST", "--data-binary", "@" + test.file.path,
                    ]
                    for header in test.headers { arguments += ["-H", header] }
                    let result = try await ExternalProcess.run("curl", arguments + [endpoint], deadline: .seconds(60))
                    let statusLine = result.stdout.split(separator: "\r\n").first ?? ""
                    #expect(statusLine.hasSuffix(" \(test.status)") || statusLine.contains(" \(test.status) "), "\(http) \(test.headers): \(result)")
                    if let reason = test.reason {
                        #expect(result.stdout.contains(#"{"reason":"\#(reason)"}"#), "\(http) \(test.headers): \(result)")
                        #expect(result.stdout.lowercased().contains("herald-explanation: "), "\(result)")
                    } else {
                        #expect(result.stdout.lowercased().contains("location: "), "\(result)")
                    }
                    #expect(result.stdout.lowercased().contains("apns-id: "), "\(result)")
                }
            }
        }
    }

    @Test("herald send --web-push to the subscription herald device --web-app printed: 201 and shown; a localhost sub 403, exit 1")
    func heraldSend() async throws {
        try await Self.withWebApp { workspace, server, _, site, _, subscription in
            let file = workspace.data.appendingPathComponent("subscription-\(UUID().uuidString).json")
            try subscription.write(to: file, atomically: true, encoding: .utf8)
            let send = ["send", "--web-push", file.path, "--vapid-key", site.keyFile.path]
            let message = ["--declarative", "--alert-title", "Order 42", "--alert-body", "Shipped", "--navigate", "https://shop.example/orders/42"]
            let sent = try await workspace.cli(send + ["--subject", "mailto:ops@example.com", "--json"] + message)
            #expect(sent.succeeded, "\(sent)")
            let answer = try #require(sent.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(sent)")
            #expect(answer["status"] as? Int == 201, "\(sent)")
            let location = try #require(answer["location"] as? String, "\(sent)")
            let apnsID = String(try #require(location.split(separator: "/").last))
            let shown = try await server.waitForNotification(apnsID, "shown") { $0.kinds.contains("shown") }
            #expect("\(shown.detail(of: "shown") ?? [:])".contains("Order 42"), "\(shown)")

            let refused = try await workspace.cli(send + ["--subject", "mailto:dev@localhost"] + message)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stdout.hasPrefix(#"403 BadJwtToken  VAPID sub "mailto:dev@localhost": a mailto at localhost is refused"#), "\(refused)")
        }
    }

    /// Examples/WebPush/server.py, as docs/web-push.md's worked example runs it, with `python` the interop venv's.
    static var exampleServer: String {
        URL(fileURLWithPath: exampleServiceWorker).deletingLastPathComponent().appendingPathComponent("server.py").path
    }

    @Test("docs/web-push.md's worked example, as written: server.py keys, herald device --web-app, server.py send over TLS, herald trace")
    func workedExample() async throws {
        try await HeraldWorkspace.with { workspace in
            let directory = workspace.data.deletingLastPathComponent().appendingPathComponent("herald-worked-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let python = try await Interop.python()
            func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
                try await ExternalProcess.run(executable, arguments, environment: environment, currentDirectory: directory, deadline: .seconds(60))
            }
            // `herald serve` in the directory (the quick start's herald-data/), on free ports rather than 2195–2197.
            let serve = try ExternalProcess(
                workspace.herald,
                ["serve", "--tls-port", "0", "--h2c-port", "0", "--link-port", "0", "--log-level", "warning"],
                currentDirectory: directory
            )
            defer { serve.killAndWait() }
            let banner = try await serve.waitForOutput(deadline: .seconds(60)) { $0 == "herald: ready" }
            let tlsPort = try #require(HeraldExecutableInteropTests.port(after: "https://127.0.0.1:", in: banner))
            let linkPort = try #require(HeraldExecutableInteropTests.port(after: "ws://127.0.0.1:", in: banner))

            let keys = try await run(python, [Self.exampleServer, "keys", "vapid.pem"])
            #expect(keys.succeeded, "\(keys)")
            let publicKey = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(publicKey.count == 87, "\(keys)")

            let device = try ExternalProcess(
                workspace.herald,
                [
                    "device", "--name", "mac", "--server", "ws://127.0.0.1:\(linkPort)/device-link", "--web-app", "https://shop.example",
                    "--vapid-public-key", publicKey, "--service-worker", Self.exampleServiceWorker,
                ],
                currentDirectory: directory
            )
            defer { device.killAndWait() }
            let printed = try await device.waitForOutput(deadline: .seconds(60)) { $0.contains(#""endpoint""#) }
            let line = try #require(printed.split(separator: "\n").first { $0.contains(#""endpoint""#) })
            #expect(line.contains("https://127.0.0.1:\(tlsPort)/push/"), "\(line)")
            try String(line).write(to: directory.appendingPathComponent("sub.json"), atomically: true, encoding: .utf8)

            let trust = ["REQUESTS_CA_BUNDLE": directory.appendingPathComponent("herald-data/tls/ca.pem").path]
            let send = [Self.exampleServer, "send", "--subscription", "sub.json", "--vapid-key", "vapid.pem"]
            let order = ["--title", "Order shipped", "--body", "Arrives Tuesday", "--url", "/orders/42", "--tag", "order-42"]
            let sent = try await run(python, send + ["--subject", "mailto:ops@example.com"] + order, environment: trust)
            #expect(sent.succeeded && sent.stdout.hasPrefix("201 https://127.0.0.1:\(tlsPort)/message/"), "\(sent)")
            let apnsID = String(try #require(sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").last))

            let traced = try await eventually("herald trace shows the message shown", within: .seconds(60), every: .milliseconds(300)) {
                () -> String? in
                let trace = try await run(workspace.herald, ["trace", apnsID, "--server", "http://127.0.0.1:\(linkPort)"])
                return trace.succeeded && trace.stdout.contains("shown") ? trace.stdout : nil
            }
            #expect(traced.contains("decrypted") && traced.contains("Order shipped"), "\(traced)")

            let localhost = try await run(python, send + ["--subject", "mailto:dev@localhost"] + order, environment: trust)
            #expect(localhost.status == 1, "\(localhost)")
            #expect(
                localhost.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == #"403 BadJwtToken VAPID sub "mailto:dev@localhost": a mailto at localhost is refused"#,
                "\(localhost)"
            )
            let space = try await run(python, send + ["--subject", "mailto: ops@example.com"] + order, environment: trust)
            #expect(space.stdout.hasPrefix(#"403 BadJwtToken VAPID sub "mailto: ops@example.com": a space is refused"#), "\(space)")
            let long = try await run(
                python,
                send + ["--subject", "mailto:ops@example.com", "--title", "Long", "--body", String(repeating: "x", count: 4100)],
                environment: trust
            )
            #expect(long.stdout.hasPrefix("413 PayloadTooLarge"), "\(long)")
        }
    }
}
