import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Tier 3 with real processes: `herald serve`'s `GET /healthz` and `GET /readyz` as an orchestrator polls them
/// (docs/console.md, "Health").
@Suite("End to end: herald serve's /healthz and /readyz", .serialized, .tier(.process))
struct HealthEndToEndTests {
    @Test("Once herald serve prints 'herald: ready', /readyz answers 200 at once (GET and HEAD), without the API token")
    func readyOnceTheBannerSaysSo() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace, options: ["--api-token", "health-token-0123456789"])
            let (status, answer) = try await server.inspect("/readyz")
            #expect(status == 200 && answer?["status"] as? String == "ready", "\(status) \(answer ?? [:])")
            #expect(try await server.head("/readyz") == 200)
            let (alive, liveness) = try await server.inspect("/healthz")
            #expect(alive == 200 && liveness?["status"] as? String == "alive", "\(alive) \(liveness ?? [:])")
            // The token is in force: the API refuses the same client.
            #expect(try await server.inspect("/api/v1/devices").status == 401)
        }
    }

    @Test("herald health: exit 0 and one line while /readyz answers 200; exit 1 and one line when nothing answers")
    func healthCommand() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let health = { (arguments: [String]) in try await ExternalProcess.run(herald, ["health"] + arguments, deadline: .seconds(30)) }
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let ready = try await health(["--link-port", "\(server.linkPort)"])
            #expect(ready.status == 0 && ready.stdout == "herald: /readyz 200 {\"status\":\"ready\"}\n", "\(ready)")
            let alive = try await health(["--live", "--link-port", "\(server.linkPort)"])
            #expect(alive.status == 0 && alive.stdout == "herald: /healthz 200 {\"status\":\"alive\"}\n", "\(alive)")
            _ = try await server.stop()
            let gone = try await health(["--link-port", "\(server.linkPort)"])
            HeraldCLIErrorTests.expectFailure(
                gone,
                "nothing answers on 127.0.0.1:\(server.linkPort): connection refused (is herald serve running, with this --link-port?)"
            )
        }
    }

    @Test("A cluster node whose database is cut is not ready once its lease runs out (cluster-lease), and ready again after")
    func clusterNodeWithoutItsLease() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let forwarder = try TCPForwarder(toLoopbackPort: try PostgresTestServer.port())
            let url = PostgresTestServer.url(try #require(workspace.database), port: forwarder.port)
            let node = try await HeraldServeProcess.start(
                in: workspace,
                options: ["--cluster", "--node-id", "node-a", "--node-lease", "2", "--database", url]
            )
            #expect(try await node.inspect("/readyz").status == 200)
            forwarder.cut()
            let waiting = try await eventually("/readyz 503 while the database is cut", within: .seconds(60)) { () -> [String]? in
                let (status, answer) = try await node.inspect("/readyz")
                return status == 503 ? answer?["waiting"] as? [String] ?? [] : nil
            }
            #expect(waiting == ["cluster-lease"])
            #expect(try await node.inspect("/healthz").status == 200, "alive all the same")
            try forwarder.restore()
            try await eventually("/readyz 200 once the database is back", within: .seconds(60)) { () -> Bool? in
                try await node.inspect("/readyz").status == 200 ? true : nil
            }
        }
    }
}

extension HeraldServeProcess {
    /// `HEAD` on the web port with curl: the status.
    func head(_ path: String) async throws -> Int {
        let result = try await ExternalProcess.run(
            "curl",
            [
                "--silent", "--show-error", "--max-time", "30", "--head", "--output", "/dev/null", "--write-out", "%{http_code}",
                "http://127.0.0.1:\(linkPort)\(path)",
            ],
            deadline: .seconds(60)
        )
        guard result.succeeded, let status = Int(result.stdout) else { throw InteropError("curl HEAD \(path) failed: \(result)") }
        return status
    }
}
