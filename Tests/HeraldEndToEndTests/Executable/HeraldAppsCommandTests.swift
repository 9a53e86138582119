import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// `herald apps` as a user runs it: the real executable on a data directory.
@Suite("Interop: herald apps", .tier(.process))
struct HeraldAppsCommandTests {
    @Test("add, add for another team (one line, non-zero), list --json, remove, remove again")
    func apps() async throws {
        let herald = try await HeraldExecutableInteropTests.heraldExecutable()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        func cli(_ arguments: String...) async throws -> ProcessResult {
            try await ExternalProcess.run(herald, arguments + ["--data-dir", data.path], deadline: .seconds(30))
        }

        let added = try await cli("apps", "add", "com.example.app", "--team", "TEAM1")
        #expect(added.succeeded && added.lines == ["com.example.app belongs to team TEAM1"], "\(added)")
        let again = try await cli("apps", "add", "com.example.app", "--team", "TEAM1")
        #expect(again.succeeded, "\(again)")

        let moved = try await cli("apps", "add", "com.example.app", "--team", "TEAM2")
        #expect(moved.status != 0 && !moved.timedOut, "\(moved)")
        #expect(
            moved.stderr
                == "herald: error: the app belongs to another team: com.example.app belongs to team TEAM1; "
                + "run `herald apps remove com.example.app` first to move it\n",
            "\(moved)"
        )

        let listed = try await cli("apps", "list", "--json")
        #expect(listed.succeeded && listed.lines.count == 1, "\(listed)")
        let app = try #require(listed.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject), "\(listed)")
        #expect(app["bundleID"] as? String == "com.example.app" && app["teamID"] as? String == "TEAM1", "\(listed)")

        let removed = try await cli("apps", "remove", "com.example.app")
        #expect(removed.succeeded && removed.lines == ["com.example.app belongs to no team"], "\(removed)")
        let missing = try await cli("apps", "remove", "com.example.app")
        #expect(missing.status != 0 && missing.stderr == "herald: error: no app com.example.app has a team (herald apps list)\n", "\(missing)")
        let badTeam = try await cli("apps", "add", "com.example.app", "--team", "bad team")
        #expect(badTeam.status != 0 && badTeam.stderr.hasPrefix("herald: error: 'bad team' is not a team id"), "\(badTeam)")
    }
}
