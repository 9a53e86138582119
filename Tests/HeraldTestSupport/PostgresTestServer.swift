import Foundation

/// The PostgreSQL server the tests use, and a new empty database on it per test.
///
/// `HERALD_TEST_DATABASE_URL` names a server to use (`.ci/run` starts one and sets it): a URL whose user may create
/// databases. Without it, the first test that asks starts a throw-away cluster with Debian's `initdb` and `pg_ctl`
/// in a temporary folder (as the `postgres` user when the tests run as root, since PostgreSQL refuses root), on a
/// free loopback port, and stops it when the test process exits. No Docker, nothing installed.
public enum PostgresTestServer {
    /// Why the server could not be had.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The URL of the server's `postgres` database, as its superuser.
    public static func adminURL() throws -> String {
        try server.get().url
    }

    /// Creates an empty database and returns its URL.
    public static func createDatabase() throws -> String {
        let server = try server.get()
        let name = "herald_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try server.psql("CREATE DATABASE \(name)")
        return server.url(database: name)
    }

    /// Drops a database made by ``createDatabase()`` (closing what is still connected to it).
    public static func dropDatabase(_ url: String) {
        guard let server = try? server.get(), let name = URL(string: url)?.lastPathComponent, name.hasPrefix("herald_test_") else { return }
        try? server.psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// The TCP port of the server.
    public static func port() throws -> Int {
        try server.get().port
    }

    /// `url` with another port: to reach the server through a ``TCPForwarder``.
    public static func url(_ url: String, port: Int) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.port = port
        return components.string ?? url
    }

    private static let server: Result<Server, any Error> = Result { try Server.make() }

    private struct Server: Sendable {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var psqlPath: String

        var url: String { url(database: "postgres") }

        func url(database: String) -> String {
            let credentials = password.map { "\(user):\($0)" } ?? user
            return "postgres://\(credentials)@\(host):\(port)/\(database)?sslmode=disable"
        }

        func psql(_ sql: String) throws {
            let result = try ExternalProcess.runBlocking(psqlPath, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
            guard result.succeeded else { throw Unavailable(description: "psql \(sql): \(result.stderr)") }
        }

        static func make() throws -> Server {
            let binaries = try PostgresBinaries.find()
            if let text = ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"], !text.isEmpty {
                guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else {
                    throw Unavailable(description: "HERALD_TEST_DATABASE_URL is not a postgres:// URL: \(text)")
                }
                return Server(host: host, port: url.port ?? 5432, user: url.user ?? "postgres", password: url.password, psqlPath: binaries.psql)
            }
            return try startCluster(binaries)
        }

        /// `initdb` and `pg_ctl start` in a new temporary folder; `pg_ctl stop` when the process exits.
        private static func startCluster(_ binaries: PostgresBinaries) throws -> Server {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pg-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let asRoot = geteuid() == 0
            var prefix: [String] = []
            if asRoot {
                // PostgreSQL does not run as root: the cluster belongs to the `postgres` user (Debian's package makes it).
                let owned = try ExternalProcess.runBlocking("/bin/chown", ["postgres", folder])
                guard owned.succeeded else { throw Unavailable(description: "chown postgres \(folder): \(owned.stderr)") }
                prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
            }
            func run(_ arguments: [String], deadline: Duration = .seconds(120)) throws {
                let command = prefix + arguments
                let result = try ExternalProcess.runBlocking(command[0], Array(command.dropFirst()), deadline: deadline)
                guard result.succeeded else {
                    throw Unavailable(description: "\(arguments.joined(separator: " ")): \(result.stderr)\(result.stdout)")
                }
            }
            let data = folder + "/data"
            try run([binaries.initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
            let port = try PostgresTestServer.freeLoopbackPort()
            // Durability settings off: a test cluster is thrown away; the store's rules are the same either way.
            let options = [
                "-p \(port)", "-k \(folder)", "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c synchronous_commit=off",
                "-c full_page_writes=off", "-c max_connections=300",
            ].joined(separator: " ")
            try run([binaries.pgCtl, "-D", data, "-l", folder + "/server.log", "-w", "-t", "120", "-o", options, "start"])
            stopCommand = prefix + [binaries.pgCtl, "-D", data, "-m", "immediate", "stop"]
            stopFolder = folder
            atexit {
                if let command = PostgresTestServer.stopCommand {
                    _ = try? ExternalProcess.runBlocking(command[0], Array(command.dropFirst()), deadline: .seconds(30))
                }
                if let folder = PostgresTestServer.stopFolder { try? FileManager.default.removeItem(atPath: folder) }
            }
            return Server(host: "127.0.0.1", port: port, user: "postgres", password: nil, psqlPath: binaries.psql)
        }

    }

    /// A TCP port on 127.0.0.1 that nothing listens on now.
    static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw Unavailable(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    nonisolated(unsafe) private static var stopCommand: [String]?
    nonisolated(unsafe) private static var stopFolder: String?
}

/// Where PostgreSQL's programs are: Debian keeps the server's in `/usr/lib/postgresql/VERSION/bin`.
public struct PostgresBinaries: Sendable {
    public var initdb: String
    public var pgCtl: String
    public var psql: String

    /// The newest installed version's programs; `psql` from the same folder or the `PATH`.
    public static func find() throws -> PostgresBinaries {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: "\(bin)/initdb") {
                let psql = FileManager.default.isExecutableFile(atPath: "\(bin)/psql") ? "\(bin)/psql" : "/usr/bin/psql"
                return PostgresBinaries(initdb: "\(bin)/initdb", pgCtl: "\(bin)/pg_ctl", psql: psql)
            }
        }
        throw PostgresTestServer.Unavailable(
            description: "PostgreSQL's programs are not installed (Debian: apt-get install postgresql; .ci/run does it)"
        )
    }
}
