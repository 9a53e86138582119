import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL server of one test's own (Debian's `initdb` and `pg_ctl` in a temporary folder, as the `postgres` user
/// under root), for a test that stops and restarts the database: the shared ``PostgresTestServer`` serves every other
/// test at the same time and must stay up. Stopped and removed by ``remove()`` (or at the latest when the object goes).
public final class PostgresPrivateCluster: @unchecked Sendable {
    /// The server's TCP port on 127.0.0.1 (the same across restarts).
    public let port: Int
    private let folder: String
    private let binaries: PostgresBinaries
    private let prefix: [String]

    /// `initdb` and `pg_ctl start`; throws ``PostgresTestServer/Unavailable`` when PostgreSQL is not installed.
    public init() throws {
        binaries = try PostgresBinaries.find()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if geteuid() == 0 {
            let owned = try ExternalProcess.runBlocking("/bin/chown", ["postgres", folder])
            guard owned.succeeded else { throw PostgresTestServer.Unavailable(description: "chown postgres \(folder): \(owned.stderr)") }
            prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        } else {
            prefix = []
        }
        port = try PostgresTestServer.freeLoopbackPort()
        try run([binaries.initdb, "-D", folder + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
        try start()
        let created = try ExternalProcess.runBlocking(
            binaries.psql,
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url(database: "postgres"), "-c", "CREATE DATABASE herald"]
        )
        guard created.succeeded else { throw PostgresTestServer.Unavailable(description: "CREATE DATABASE herald: \(created)") }
    }

    deinit { remove() }

    /// The URL of database `herald` (made at start), or of another one.
    public func url(database: String = "herald") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Starts the server (again) on the same port.
    public func start() throws {
        // `synchronous_commit` stays on: with it off, a commit is answered before its WAL is written, and a server
        // stopped at once loses the last ones — a `200` lost by the database's own configuration. `fsync=off` is safe
        // here: the stop kills processes, not the machine, so what reached the OS is kept.
        let options = [
            "-p \(port)", "-k \(folder)", "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c full_page_writes=off",
            "-c max_connections=100",
        ].joined(separator: " ")
        try run([binaries.pgCtl, "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "120", "-o", options, "start"])
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`: no checkpoint; the next start recovers).
    public func stop() throws {
        try run([binaries.pgCtl, "-D", folder + "/data", "-m", "immediate", "stop"])
    }

    /// Stops the server if it runs and removes its folder.
    public func remove() {
        let command = prefix + [binaries.pgCtl, "-D", folder + "/data", "-m", "immediate", "stop"]
        _ = try? ExternalProcess.runBlocking(command[0], Array(command.dropFirst()), deadline: .seconds(30))
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func run(_ arguments: [String]) throws {
        let command = prefix + arguments
        let result = try ExternalProcess.runBlocking(command[0], Array(command.dropFirst()), deadline: .seconds(120))
        guard result.succeeded else {
            throw PostgresTestServer.Unavailable(description: "\(arguments.joined(separator: " ")): \(result.stderr)\(result.stdout)")
        }
    }
}
