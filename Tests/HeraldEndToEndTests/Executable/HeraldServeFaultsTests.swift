import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// `herald serve --faults FILE` as a real process, answered over HTTP/2 by curl.
@Suite("Interop: herald serve --faults", .serialized, .tier(.process))
struct HeraldServeFaultsTests {
    static let alert = #"{"aps":{"alert":"fault"}}"#

    /// A `--faults` file beside the workspace's data directory; the caller removes it.
    static func rulesFile(_ json: String, in workspace: HeraldWorkspace) throws -> URL {
        let rules = workspace.data.deletingLastPathComponent().appendingPathComponent("faults-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: rules)
        return rules
    }

    /// Stops a server with SIGTERM and waits for it.
    static func stop(_ server: HeraldServeProcess) async throws {
        server.process.signal(SIGTERM)
        _ = try await server.process.wait(deadline: .seconds(30))
    }

    @Test("rules from the file are in force from the start: two 503s, then the real answer; they come back after a restart")
    func rulesFromFile() async throws {
        try await HeraldWorkspace.with { workspace in
            let rules = try Self.rulesFile(
                #"[{"id": "outage", "match": {"topic": "\#(HeraldWorkspace.topic)"}, "status": 503, "count": 2}]"#,
                in: workspace
            )
            defer { try? FileManager.default.removeItem(at: rules) }
            let token = String(repeating: "5a", count: 32)
            for round in 1...2 {
                let server = try await HeraldServeProcess.start(in: workspace, options: ["--faults", rules.path])
                let jwt = try await workspace.providerToken()
                for attempt in 1...2 {
                    let answer = try await server.post(token: token, jwt: jwt, body: Self.alert)
                    #expect(answer.status == 503 && answer.reason == "ServiceUnavailable", "round \(round), attempt \(attempt): \(answer)")
                    #expect(answer.headers["apns-id"] != nil, "\(answer)")
                }
                let real = try await server.post(token: token, jwt: jwt, body: Self.alert)
                #expect(real.status != 503, "round \(round): the rule is spent: \(real)")
                let metrics = try await server.metrics()
                #expect(metrics.contains("herald_faults_total 2"), "\(metrics)")
                try await Self.stop(server)
            }
        }
    }

    @Test("curl through a delayed answer followed by GOAWAY Shutdown: 200 after the wait; the next connection is served")
    func curlDelayAndGoAway() async throws {
        try await HeraldWorkspace.with { workspace in
            let rules = try Self.rulesFile(#"[{"delayMs": 300, "goaway": "Shutdown", "count": 1}]"#, in: workspace)
            defer { try? FileManager.default.removeItem(at: rules) }
            let server = try await HeraldServeProcess.start(in: workspace, options: ["--faults", rules.path])
            let jwt = try await workspace.providerToken()
            let token = String(repeating: "5b", count: 32)
            let started = ContinuousClock.now
            let first = try await server.post(token: token, jwt: jwt, body: Self.alert)
            #expect(started.duration(to: .now) >= .milliseconds(300))
            #expect(first.version == "HTTP/2" && first.reason == "BadDeviceToken", "the real answer, after the wait: \(first)")
            let second = try await server.post(token: token, jwt: jwt, body: Self.alert)
            #expect(second.reason == "BadDeviceToken", "\(second)")
            let metrics = try await server.metrics()
            #expect(metrics.contains("herald_faults_total 1"), "\(metrics)")
            try await Self.stop(server)
        }
    }

    @Test("herald faults add, list and clear against a running server; the push gets the rule's answer; errors are one line")
    func faultsCommand() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let web = ["--server", "http://127.0.0.1:\(server.linkPort)"]
            // `herald faults` talks to the server, not to a data directory.
            func herald(_ arguments: [String]) async throws -> ProcessResult {
                try await ExternalProcess.run(workspace.herald, arguments, deadline: .seconds(60))
            }
            let added = try await herald(["faults", "add", #"{"id": "gone", "status": 410, "timestamp": 1700000000000}"#] + web)
            #expect(added.succeeded, "\(added)")
            #expect(added.stdout == "added gone  410 Unregistered  every request  applied 0\n", "\(added)")
            let token = String(repeating: "5c", count: 32)
            let answer = try await server.post(token: token, jwt: try await workspace.providerToken(), body: Self.alert)
            #expect(answer.status == 410 && answer.reason == "Unregistered" && answer.timestamp == 1_700_000_000_000, "\(answer)")
            let listed = try await herald(["faults", "list", "--json"] + web)
            let object = try #require(listed.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(listed)")
            #expect(object["id"] as? String == "gone" && object["applied"] as? Int == 1, "\(listed)")
            let bad = try await herald(["faults", "add", #"{"status": 418}"#] + web)
            #expect(
                !bad.succeeded
                    && bad.stderr
                        == "herald: error: POST /api/v1/faults: 400 'status' 418 is not in Apple's table (400, 403, 404, 405, 410, 413, 429, 500, 503)\n",
                "\(bad)"
            )
            let cleared = try await herald(["faults", "clear"] + web)
            #expect(cleared.stdout == "removed 1 rule\n", "\(cleared)")
            let empty = try await herald(["faults", "list"] + web)
            #expect(empty.stdout == "no fault rule in force\n", "\(empty)")
            let nowhere = try await herald(["faults", "list", "--server", "http://127.0.0.1:1"])
            // The system's words for the failure, not an HTTP library's.
            let refused = "herald: error: no Herald web port at http://127.0.0.1:1 (connection refused); is `herald serve` running? (--server)\n"
            #expect(nowhere.status == 1 && nowhere.stderr == refused, "\(nowhere)")
            try await Self.stop(server)
        }
    }

    @Test("a fault rule's answer names the rule: its header, herald send's line; herald trace prints its fault event")
    func traceOfFaultAnswer() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let web = ["--server", "http://127.0.0.1:\(server.linkPort)"]
            let added = try await ExternalProcess.run(workspace.herald, ["faults", "add", #"{"id": "gone", "status": 410}"#] + web)
            #expect(added.succeeded, "\(added)")
            let answer = try await server.post(token: String(repeating: "5d", count: 32), jwt: try await workspace.providerToken(), body: Self.alert)
            #expect(answer.status == 410, "\(answer)")
            #expect(answer.headers["herald-fault-rule"] == "gone", "the answer names the rule: \(answer)")
            let apnsID = try #require(answer.headers["apns-id"], "\(answer)")

            // herald send says which rule answered, and how to remove it.
            let sent = try await workspace.cli([
                "send", "--server", server.providerURL, "--token", String(repeating: "5d", count: 32), "--topic", HeraldWorkspace.topic,
                "--alert", "hi",
            ])
            #expect(sent.status == 1 && sent.lines.count == 1, "\(sent)")
            #expect(sent.lines.first?.hasPrefix("410 Unregistered  timestamp ") == true, "\(sent)")
            #expect(
                sent.lines.first?.hasSuffix(" ms  answered by fault rule gone (herald faults clear --id gone removes it)") == true,
                "\(sent)"
            )
            let sentJSON = try await workspace.cli([
                "send", "--server", server.providerURL, "--token", String(repeating: "5d", count: 32), "--topic", HeraldWorkspace.topic,
                "--alert", "hi", "--json",
            ])
            #expect(sentJSON.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject)?["faultRule"] as? String == "gone", "\(sentJSON)")

            let traced = try await workspace.cli(["trace", apnsID] + web)
            #expect(traced.succeeded && traced.stderr.isEmpty, "\(traced)")
            #expect(traced.lines.count == 2, "\(traced)")
            #expect(traced.lines.first == "\(apnsID)  not accepted: a fault rule answered (no notification is stored)", "\(traced)")
            #expect(traced.lines.last?.hasSuffix("Z  fault         rule gone, status 410, reason Unregistered") == true, "\(traced)")
            let json = try await workspace.cli(["trace", apnsID, "--json"] + web)
            let object = try #require(json.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(json)")
            let traceEvents = TracedNotification(object)
            #expect(traceEvents.kinds == ["fault"], "\(json)")
            #expect(traceEvents.detail(of: "fault")?["rule"] as? String == "gone", "\(json)")

            // Without the server (another web port), the store alone has nothing: the usual one line.
            let elsewhere = try await workspace.cli(["trace", apnsID, "--server", "http://127.0.0.1:1"])
            HeraldCLIErrorTests.expectFailure(elsewhere, "no notification with apns-id \(apnsID)")
        }
    }

    @Test("an apns-outage whose window is over is listed with its end time as expired, by herald faults list and the API")
    func expiredOutage() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let web = ["--server", "http://127.0.0.1:\(server.linkPort)"]
            func herald(_ arguments: [String]) async throws -> ProcessResult {
                try await ExternalProcess.run(workspace.herald, arguments + web, deadline: .seconds(60))
            }
            let added = try await herald(["faults", "add", #"{"scenario": "apns-outage", "seconds": 1, "id": "outage"}"#])
            let prefix = "added outage  503 ServiceUnavailable, GOAWAY Shutdown  every request  applied 0  until "
            #expect(added.succeeded && added.stdout.hasPrefix(prefix), "\(added)")
            let until = try #require((try await server.inspect("/api/v1/faults")).object?["faults"] as? [[String: Any]]).first?["until"] as? Int
            let end = try #require(until)
            let listed = try await eventually("the outage to be over", within: .seconds(30)) {
                let listed = try await herald(["faults", "list"])
                return listed.stdout.contains("expired") ? listed : nil
            }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let ended = formatter.string(from: Date(timeIntervalSince1970: Double(end) / 1000))
            #expect(listed.stdout == "outage  503 ServiceUnavailable, GOAWAY Shutdown  every request  applied 0  expired \(ended)\n", "\(listed)")
            #expect(listed.status == 0, "\(listed)")
            let api = try #require((try await server.inspect("/api/v1/faults")).object?["faults"] as? [[String: Any]])
            #expect(api.first?["state"] as? String == "expired" && api.first?["until"] as? Int == end, "\(api)")
        }
    }

    @Test("a file with a bad rule: one line naming the file, the rule and the field; exit status 1")
    func badFile() async throws {
        try await HeraldCLIErrorTests.withDirectory { directory in
            let rules = directory.appendingPathComponent("faults.json")
            try Data(#"[{"status": 503}, {"status": 503, "reason": "Unregistered"}]"#.utf8).write(to: rules)
            let herald = try await HeraldExecutableInteropTests.heraldExecutable()
            let result = try await ExternalProcess.run(
                herald,
                ["serve", "--data-dir", directory.appendingPathComponent("data").path, "--faults", rules.path],
                deadline: .seconds(60)
            )
            HeraldCLIErrorTests.expectFailure(
                result,
                "--faults \(rules.path): rule 2: 'reason' Unregistered is Apple's answer with status 410, not 503"
            )
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data").path))
            try Data(#"{"rules": [{"id": "a", "status": 500}, {"id": "a", "status": 503}]}"#.utf8).write(to: rules)
            let twice = try await ExternalProcess.run(
                herald,
                ["serve", "--data-dir", directory.appendingPathComponent("data").path, "--faults", rules.path],
                deadline: .seconds(60)
            )
            HeraldCLIErrorTests.expectFailure(twice, "--faults \(rules.path): two rules have the id 'a'")
        }
    }
}
