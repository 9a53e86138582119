import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// Tier 3 with real processes: one single `herald serve --database` per database, or `--cluster` nodes only
/// (docs/postgresql.md, "One server per database"). A refused server exits with status 1 and one line naming who
/// holds the database; the lock goes with its holder's session, however the holder ends.
@Suite("End to end: one single node or cluster nodes on a PostgreSQL database, never both", .serialized, .tier(.process))
struct ServeLockEndToEndTests {
    /// How a refusal names a single node: its pid and the host (clipped as in the session's `application_name`).
    static func singleNode(_ server: HeraldServeProcess) -> String {
        "pid \(server.process.pid) on \(ProcessInfo.processInfo.hostName.prefix(32))"
    }

    /// A data directory of its own for another server on the workspace's database (each process locks its own).
    static func otherDataDirectory(_ name: String, in workspace: HeraldWorkspace) throws -> URL {
        let directory = workspace.data.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `herald serve` on the workspace's database in `directory`, run to its end (a refused one ends at once).
    static func serve(in workspace: HeraldWorkspace, dataDirectory: URL, options: [String] = []) async throws -> ProcessResult {
        try await ExternalProcess.run(
            workspace.herald,
            ["serve", "--data-dir", dataDirectory.path, "--tls-port", "-1", "--h2c-port", "0", "--link-port", "0"] + options,
            environment: workspace.environment,
            deadline: .seconds(60)
        )
    }

    /// Starts a server in `directory`, trying again while the database still refuses it: the holder's session ends
    /// a moment after its process.
    static func startWhenReleased(in workspace: HeraldWorkspace, dataDirectory: URL, options: [String] = []) async throws -> HeraldServeProcess {
        try await eventually("a server starts on the released database", within: .seconds(30)) {
            try? await HeraldServeProcess.start(in: workspace, dataDirectory: dataDirectory, options: options)
        }
    }

    @Test("A second single node on the database exits at once naming the first; after the first is killed, a new one starts")
    func secondSingleNode() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let database = try #require(workspace.database)
            let first = try await HeraldServeProcess.start(in: workspace)
            let other = try Self.otherDataDirectory("second", in: workspace)
            let second = try await Self.serve(in: workspace, dataDirectory: other)
            HeraldCLIErrorTests.expectFailure(
                second,
                "another herald serve (\(Self.singleNode(first))) is using the database \(database): "
                    + "stop it first, or run every node with --cluster (docs/cluster.md)"
            )
            #expect(first.process.isRunning)
            // The lock goes with the holder's session, however the process ends: after kill -9 a new one starts.
            first.crash()
            let restarted = try await Self.startWhenReleased(in: workspace, dataDirectory: other)
            #expect(restarted.process.isRunning)
        }
    }

    @Test("A cluster node refuses a database a single node holds; after the single node stops, it starts")
    func clusterNodeAfterSingleNode() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let database = try #require(workspace.database)
            let single = try await HeraldServeProcess.start(in: workspace)
            let directory = try Self.otherDataDirectory("node-a", in: workspace)
            let node = try await Self.serve(in: workspace, dataDirectory: directory, options: ["--cluster", "--node-id", "node-a"])
            HeraldCLIErrorTests.expectFailure(
                node,
                "a herald serve without --cluster (\(Self.singleNode(single))) is using the database \(database): "
                    + "stop it first, or run it with --cluster too (docs/cluster.md)"
            )
            #expect(single.process.isRunning)
            let stopped = try await single.stop()
            #expect(stopped.status == 0, "\(stopped)")
            let started = try await Self.startWhenReleased(in: workspace, dataDirectory: directory, options: ["--cluster", "--node-id", "node-a"])
            #expect(started.process.stdoutSoFar.contains("cluster node node-a"), "\(started.process.stdoutSoFar)")
        }
    }

    @Test("Cluster nodes share the database; a single node refuses it, naming them, and starts once they are gone")
    func singleNodeAfterClusterNodes() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let database = try #require(workspace.database)
            let nodes = try await ClusterEndToEndTests.startNodes(2, in: workspace)
            let directory = try Self.otherDataDirectory("single", in: workspace)
            let single = try await Self.serve(in: workspace, dataDirectory: directory)
            HeraldCLIErrorTests.expectFailure(
                single,
                "herald serve --cluster nodes (node-a, node-b) are using the database \(database): "
                    + "run this one with --cluster too, or give it a database of its own (docs/cluster.md)"
            )
            #expect(nodes.allSatisfy { $0.process.isRunning })
            // One node left still refuses it; none left, it starts.
            let stopped = try await nodes[0].stop()
            #expect(stopped.status == 0, "\(stopped)")
            let again = try await Self.serve(in: workspace, dataDirectory: directory)
            HeraldCLIErrorTests.expectFailure(
                again,
                "a herald serve --cluster node (node-b) is using the database \(database): "
                    + "run this one with --cluster too, or give it a database of its own (docs/cluster.md)"
            )
            nodes[1].crash()
            let started = try await Self.startWhenReleased(in: workspace, dataDirectory: directory)
            #expect(started.process.isRunning)
        }
    }
}
