import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Tier 3 with real processes: `herald devices` and `herald trace` as a user runs them, on a data directory
/// that the test also opens through the store (as a server would).
@Suite("Interop: herald devices and herald trace", .tier(.process))
struct HeraldDevicesCommandTests {
    /// Runs `herald` with the arguments and `--data-dir`.
    static func herald(_ arguments: [String], data: URL) async throws -> ProcessResult {
        let executable = try await HeraldExecutableInteropTests.heraldExecutable()
        return try await ExternalProcess.run(executable, arguments + ["--data-dir", data.path], deadline: .seconds(60))
    }

    /// Runs the body with a fresh (empty) data directory, removed afterwards.
    static func withDataDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        return try await body(data)
    }

    /// Expects a failure reported as exactly one line `herald: error: <prefix>…` and nothing on standard output.
    static func expectOneLineError(_ result: ProcessResult, startingWith prefix: String) {
        #expect(result.status == 1 && !result.timedOut, "\(result)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines.last == "", "\(result)")
        #expect(lines.first?.hasPrefix("herald: error: \(prefix)") == true, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    static func jsonObject(_ line: String?) -> [String: Any]? {
        line.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test("devices add prints an id and a secret that authenticate; devices list shows devices and their tokens")
    func addAndList() async throws {
        try await Self.withDataDirectory { data in
            let added = try await Self.herald(["devices", "add", "Anna's phone"], data: data)
            #expect(added.succeeded, "\(added)")
            #expect(added.lines.count == 2, "\(added)")
            let id = try #require(added.lines.first?.split(separator: " ").last.map(String.init), "\(added)")
            let secret = try #require(added.lines.last?.split(separator: " ").last.map(String.init), "\(added)")
            #expect(added.lines.first == "device \(id)" && added.lines.last == "secret \(secret)", "\(added)")
            #expect(UUID(uuidString: id) != nil && secret.count == 64, "\(added)")

            let addedJSON = try await Self.herald(["devices", "add", "tablet", "--json"], data: data)
            #expect(addedJSON.succeeded && addedJSON.lines.count == 1, "\(addedJSON)")
            let tablet = try #require(Self.jsonObject(addedJSON.lines.first), "\(addedJSON)")
            let tabletID = try #require(tablet["id"] as? String, "\(addedJSON)")
            #expect(tablet["name"] as? String == "tablet")
            #expect((tablet["secret"] as? String)?.count == 64)
            #expect(tablet["createdAt"] as? Int != nil)

            // The server side: the credentials work, and the phone registers an app.
            let token = try await withStore(in: data.path) { store in
                #expect(try await store.authenticateDevice(id: id, secret: secret)?.name == "Anna's phone")
                #expect(try await store.authenticateDevice(id: tabletID, secret: secret) == nil)
                return try await store.registerAppToken(deviceID: id, bundleID: "com.example.app", environment: .sandbox).token.token
            }

            let listed = try await Self.herald(["devices", "list", "--json"], data: data)
            #expect(listed.succeeded && listed.lines.count == 2, "\(listed)")
            let phone = try #require(Self.jsonObject(listed.lines.first), "\(listed)")
            #expect(phone["id"] as? String == id && phone["name"] as? String == "Anna's phone", "\(listed)")
            #expect(phone["secret"] == nil, "\(listed)")
            let tokens = try #require(phone["tokens"] as? [[String: Any]], "\(listed)")
            #expect(tokens.count == 1, "\(listed)")
            #expect(tokens.first?["token"] as? String == token.hex, "\(listed)")
            #expect(tokens.first?["bundleID"] as? String == "com.example.app", "\(listed)")
            #expect(tokens.first?["environment"] as? String == "sandbox", "\(listed)")
            #expect(tokens.first?["unregisteredAt"] is NSNull, "\(listed)")
            #expect((Self.jsonObject(listed.lines.last)?["tokens"] as? [Any])?.isEmpty == true, "\(listed)")

            let text = try await Self.herald(["devices", "list"], data: data)
            #expect(text.succeeded, "\(text)")
            #expect(text.lines.count == 3, "\(text)")
            #expect(text.lines.first?.hasPrefix("\(id)  added ") == true && text.lines.first?.hasSuffix("  Anna's phone") == true, "\(text)")
            #expect(text.lines.dropFirst().first == "    com.example.app  sandbox  \(token.hex)  device", "\(text)")
        }
    }

    @Test("devices list: every active token with its kind, the device token first, so that the README's awk recipe picks it")
    func listByKind() async throws {
        try await Self.withDataDirectory { data in
            let added = try await Self.herald(["devices", "add", "la-phone", "--json"], data: data)
            let id = try #require(Self.jsonObject(added.lines.first)?["id"] as? String, "\(added)")
            let app = "com.example.app"
            let (device, start, activity) = try await withStore(in: data.path) { store in
                // The activity kinds are registered first and later: neither order nor age puts them before the device token.
                let start = try await store.registerActivityToken(Self.activityToken(id, app, .pushToStart, "a1"), limit: 64).token.token
                let device = try await store.registerAppToken(deviceID: id, bundleID: app, environment: .sandbox).token.token
                let activity = try await store.registerActivityToken(Self.activityToken(id, app, .activity, "b2"), limit: 64).token.token
                return (device, start, activity)
            }
            let text = try await Self.herald(["devices", "list"], data: data)
            #expect(text.succeeded && text.stderr.isEmpty, "\(text)")
            #expect(
                Array(text.lines.dropFirst()) == [
                    "    com.example.app  sandbox  \(device.hex)  device",
                    "    com.example.app  sandbox  \(start.hex)  push-to-start  DeliveryAttributes",
                    "    com.example.app  sandbox  \(activity.hex)  activity  DeliveryAttributes",
                ],
                "\(text)"
            )
            // The README's line that finds TOKEN, as written, on this data directory.
            let readmeLine = try #require(try QuickStartTests.readmeCurlBlock().split(separator: "\n").first { $0.hasPrefix("TOKEN=$(") })
            let herald = try await HeraldExecutableInteropTests.heraldExecutable()
            let recipe = try await ExternalProcess.run(
                "bash",
                ["-euo", "pipefail", "-c", String(readmeLine) + "\necho \"$TOKEN\""],
                environment: [
                    "PATH": URL(fileURLWithPath: herald).deletingLastPathComponent().path + ":"
                        + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                    "HERALD_DATA_DIR": data.path,
                ],
                deadline: .seconds(60)
            )
            #expect(recipe.lines == [device.hex], "\(readmeLine)\n\(recipe)")

            let json = try await Self.herald(["devices", "list", "--json"], data: data)
            let tokens = try #require(Self.jsonObject(json.lines.first)?["tokens"] as? [[String: Any]], "\(json)")
            let kinds = tokens.map { "\($0["token"] as? String ?? "") \($0["kind"] as? String ?? "") \($0["activityType"] as? String ?? "-")" }
            #expect(
                Set(kinds) == [
                    "\(device.hex) device -", "\(start.hex) push-to-start DeliveryAttributes", "\(activity.hex) activity DeliveryAttributes",
                ],
                "\(json)"
            )
            #expect(tokens.first { $0["kind"] as? String == "device" }?["activityType"] is NSNull, "\(json)")
        }
    }

    static func activityToken(_ deviceID: String, _ app: String, _ kind: TokenKind, _ byte: String) throws -> ActivityTokenRequest {
        let token = try #require(DeviceToken(hex: String(repeating: byte, count: 32)))
        return ActivityTokenRequest(
            deviceID: deviceID,
            bundleID: app,
            environment: .sandbox,
            kind: kind,
            token: token,
            activityType: "DeliveryAttributes"
        )
    }

    @Test("trace prints the notification, then each event with its ISO 8601 time, kind and detail")
    func traceOfAnAcceptedNotification() async throws {
        try await Self.withDataDirectory { data in
            let id = try #require(NotificationID("5A1B2C3D-0000-4000-8000-00000000ABCD"))
            let token = try await withStore(in: data.path) { store in
                let device = try await store.addDevice(name: "phone").device
                let token = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox).token.token
                let notification = AcceptedNotification.fixture(
                    token: token,
                    id: id,
                    collapseID: "score",
                    alert: "Goal!",
                    acceptedAt: 1_700_000_000_123
                )
                try await store.accept(notification)
                try await store.record([
                    DeliveryChange(notificationID: id, event: .sent, atMilliseconds: 1_700_000_000_200, detailJSON: #"{"attempt":1}"#)
                ])
                return token
            }

            let traced = try await Self.herald(["trace", id.text.lowercased()], data: data)
            #expect(traced.succeeded, "\(traced)")
            #expect(traced.lines.count == 3, "\(traced)")
            let summary = try #require(traced.lines.first, "\(traced)")
            #expect(summary.hasPrefix("\(id.text)  \(token.hex)  com.example.app  alert  p10  stored"), "\(traced)")
            #expect(summary.hasSuffix("collapse-id score  accepted 2023-11-14T22:13:20.123Z"), "\(traced)")
            #expect(traced.lines[1].hasPrefix("  2023-11-14T22:13:20.123Z  accepted "), "\(traced)")
            #expect(traced.lines[1].contains(token.hex), "\(traced)")
            #expect(traced.lines[2] == "  2023-11-14T22:13:20.200Z  sent          attempt 1", "\(traced)")

            let json = try await Self.herald(["trace", id.text, "--json"], data: data)
            #expect(json.succeeded && json.lines.count == 1, "\(json)")
            let object = try #require(Self.jsonObject(json.lines.first), "\(json)")
            #expect(object["apnsID"] as? String == id.text, "\(json)")
            #expect(object["state"] as? String == "stored", "\(json)")
            #expect(object["collapseID"] as? String == "score", "\(json)")
            #expect(object["expiration"] is NSNull, "\(json)")
            #expect(((object["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? String == "Goal!", "\(json)")
            let trace = try #require(object["trace"] as? [[String: Any]], "\(json)")
            #expect(trace.map { $0["kind"] as? String } == ["accepted", "sent"], "\(json)")
            #expect(trace.last?["at"] as? Int == 1_700_000_000_200, "\(json)")
            #expect((trace.last?["detail"] as? [String: Any])?["attempt"] as? Int == 1, "\(json)")
        }
    }

    @Test("Errors are one line and exit 1: an unknown or malformed apns-id, a bad device name")
    func errors() async throws {
        try await Self.withDataDirectory { data in
            let unknown = try await Self.herald(["trace", "5a1b2c3d-0000-4000-8000-000000000000"], data: data)
            Self.expectOneLineError(unknown, startingWith: "no notification with apns-id 5a1b2c3d-0000-4000-8000-000000000000")
            let malformed = try await Self.herald(["trace", "not-an-id"], data: data)
            Self.expectOneLineError(malformed, startingWith: "'not-an-id' is not an apns-id")
            let empty = try await Self.herald(["devices", "add", ""], data: data)
            Self.expectOneLineError(empty, startingWith: "invalid record: a device name")
            let listed = try await Self.herald(["devices", "list", "--json"], data: data)
            #expect(listed.succeeded && listed.lines.isEmpty, "\(listed)")
        }
    }
}
