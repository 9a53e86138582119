import Foundation
import HeraldTestSupport
import Synchronization
import Testing

/// A device's credentials, as `herald devices add NAME --json` printed them.
struct DeviceCredentials: Sendable {
    var id: String
    var secret: String
}

/// A temporary data directory for end-to-end runs of the `herald` executable, with a provider signing key
/// registered in it. It keeps every process it starts and ends them all when the test is over, whether the test
/// passed, failed or threw; then it removes the directory.
final class HeraldWorkspace: Sendable {
    static let keyID = "DLVKEY1234"
    static let teamID = "DLVTEAM123"
    static let topic = "com.example.app"

    /// The `herald` executable under test.
    let herald: String
    /// The data directory every `herald` command of the test shares.
    let data: URL
    /// The provider's `.p8` key, registered in the data directory by `herald keys generate`.
    let keyFile: URL
    /// `HERALD_DATABASE_URL` for every `herald` the workspace runs when it works on PostgreSQL (docs/postgresql.md).
    let environment: [String: String]
    /// The PostgreSQL database, dropped at the end; `nil`: the data directory's SQLite file.
    let database: String?
    private let processes = Mutex<[ExternalProcess]>([])

    /// Runs `body` with a fresh workspace, then kills every process it started and removes the directory.
    /// With `onPostgreSQL`, every `herald` command of the workspace works on a new PostgreSQL database
    /// (PostgresTestServer), dropped at the end.
    static func with<T>(onPostgreSQL: Bool = false, _ body: (HeraldWorkspace) async throws -> T) async throws -> T {
        try await with(database: onPostgreSQL ? try PostgresTestServer.createDatabase() : nil, body)
    }

    /// Runs `body` with a fresh workspace on this PostgreSQL database (a ``PostgresPrivateCluster``'s, for a test that
    /// restarts the server), or on SQLite when `nil`.
    static func with<T>(database: String?, _ body: (HeraldWorkspace) async throws -> T) async throws -> T {
        let workspace = try await HeraldWorkspace(database: database)
        do {
            let value = try await body(workspace)
            workspace.tearDown()
            return value
        } catch {
            workspace.tearDown()
            throw error
        }
    }

    private init(database: String?) async throws {
        self.database = database
        environment = database.map { ["HERALD_DATABASE_URL": $0] } ?? [:]
        herald = try await HeraldExecutableInteropTests.heraldExecutable()
        data = FileManager.default.temporaryDirectory.appendingPathComponent("herald-delivery-\(UUID().uuidString)")
        keyFile = data.appendingPathComponent("provider.p8")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let generated = try await ExternalProcess.run(
            herald,
            ["keys", "generate", "--data-dir", data.path, "--key-id", Self.keyID, "--team-id", Self.teamID, "--out", keyFile.path],
            environment: environment,
            deadline: .seconds(60)
        )
        guard generated.succeeded else {
            tearDown()
            throw InteropError("herald keys generate failed: \(generated)")
        }
    }

    /// Starts `herald` with `arguments`; the process is killed at the end of the workspace at the latest.
    func start(_ arguments: [String]) throws -> ExternalProcess {
        let process = try ExternalProcess(herald, arguments, environment: environment)
        processes.withLock { $0.append(process) }
        return process
    }

    /// Runs `herald` with `arguments` and `--data-dir` to completion (or to its deadline).
    func cli(_ arguments: [String], deadline: Duration = .seconds(60)) async throws -> ProcessResult {
        try await ExternalProcess.run(herald, arguments + ["--data-dir", data.path], environment: environment, deadline: deadline)
    }

    /// Creates a device with `herald devices add NAME --json`.
    func addDevice(_ name: String) async throws -> DeviceCredentials {
        let added = try await cli(["devices", "add", name, "--json"])
        guard added.succeeded, let object = added.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject),
            let id = object["id"] as? String, let secret = object["secret"] as? String
        else { throw InteropError("herald devices add failed: \(added)") }
        return DeviceCredentials(id: id, secret: secret)
    }

    /// A provider authentication token (JWT) signed now with the workspace's key (`herald keys token`).
    func providerToken() async throws -> String {
        let signed = try await ExternalProcess.run(
            herald,
            ["keys", "token", "--p8", keyFile.path, "--key-id", Self.keyID, "--team-id", Self.teamID],
            deadline: .seconds(60)
        )
        guard signed.succeeded, let jwt = signed.lines.first else { throw InteropError("herald keys token failed: \(signed)") }
        return jwt
    }

    /// `herald trace APNS_ID --json`: the notification and its trace, or `nil` when there is none (yet).
    func trace(_ apnsID: String) async throws -> TracedNotification? {
        let traced = try await cli(["trace", apnsID, "--json"])
        guard traced.succeeded else {
            if traced.stderr.contains("no notification with apns-id") { return nil }
            throw InteropError("herald trace failed: \(traced)")
        }
        guard let object = traced.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject) else {
            throw InteropError("herald trace --json printed no object: \(traced)")
        }
        return TracedNotification(object)
    }

    /// Kills every process still running and removes the data directory.
    func tearDown() {
        let started = processes.withLock { processes in
            defer { processes.removeAll() }
            return processes
        }
        for process in started { process.killAndWait() }
        try? FileManager.default.removeItem(at: data)
        if let database { PostgresTestServer.dropDatabase(database) }
    }
}

/// A notification with its trace, as `herald trace --json` and `GET /api/v1/notifications/{apnsID}` show it.
struct TracedNotification: CustomStringConvertible {
    /// The whole JSON object.
    var object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    var apnsID: String? { object["apnsID"] as? String }
    var state: String? { object["state"] as? String }
    var events: [[String: Any]] { object["trace"] as? [[String: Any]] ?? [] }
    /// The kinds of the trace events, oldest first.
    var kinds: [String] { events.compactMap { $0["kind"] as? String } }
    /// The detail object of the last event of `kind`.
    func detail(of kind: String) -> [String: Any]? {
        events.last { $0["kind"] as? String == kind }?["detail"] as? [String: Any]
    }

    var description: String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(object)"
    }
}
