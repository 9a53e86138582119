import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How every command finds Herald's data directory: `--data-dir`, else `HERALD_DATA_DIR`, else `./herald-data`.
///
/// Only `herald serve` creates it. The other commands need it to exist (``requireExisting()``): run in another
/// directory, they say so in one line instead of working on a new, empty database that no server reads.
struct DataDirectoryOptions: ParsableArguments {
    /// The environment variable that names the data directory when `--data-dir` is not given.
    static let environmentVariable = "HERALD_DATA_DIR"
    /// The data directory when neither `--data-dir` nor `HERALD_DATA_DIR` names one.
    static let defaultPath = "./herald-data"

    @Option(
        name: .customLong("data-dir"),
        help: "Herald's data directory (database, keys, TLS files; default: $HERALD_DATA_DIR, else ./herald-data)."
    )
    var option: String?

    @Option(
        name: .customLong("database"),
        help: """
            A PostgreSQL database instead of the data directory's SQLite file: \
            postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…] (default: $HERALD_DATABASE_URL; docs/postgresql.md).
            """
    )
    var database: String?

    /// The environment variable that names a PostgreSQL database when `--database` is not given.
    static let databaseEnvironmentVariable = "HERALD_DATABASE_URL"

    /// The PostgreSQL database, if one is named: `--database`, else `HERALD_DATABASE_URL`; `nil`: the SQLite file.
    var databaseURL: String? {
        database ?? ProcessInfo.processInfo.environment[Self.databaseEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The data directory as given: `--data-dir`, `HERALD_DATA_DIR`, or `./herald-data`.
    var dataDirectory: String { option ?? environmentValue ?? Self.defaultPath }

    private var environmentValue: String? {
        ProcessInfo.processInfo.environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    var url: URL { URL(fileURLWithPath: dataDirectory, isDirectory: true) }
    var tlsDirectory: URL { url.appendingPathComponent("tls", isDirectory: true) }
    /// Where `herald serve` and `herald keys generate` keep the keys `herald send` and `herald keys token` find.
    var keysDirectory: URL { url.appendingPathComponent("keys", isDirectory: true) }

    /// Throws a ``CLIFailure`` naming the database when it exists but cannot be written (SQLite would say only
    /// "attempt to write a readonly database").
    func requireWritableDatabase() throws {
        let database = url.appendingPathComponent("herald.sqlite").path
        guard FileManager.default.fileExists(atPath: database), access(database, R_OK | W_OK) != 0 else { return }
        throw CLIFailure("cannot write the database \(database): \(SystemError.text(errno)) (fix its permissions, or choose another --data-dir)")
    }

    /// Throws a ``CLIFailure`` naming the directory and what to run, unless the data directory exists.
    func requireExisting() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIFailure("\(dataDirectory) is not a directory (give Herald's data directory with --data-dir)")
            }
            return
        }
        if option != nil {
            throw CLIFailure("no Herald data directory at \(dataDirectory) (start `herald serve --data-dir \(dataDirectory)` first)")
        }
        if environmentValue != nil {
            throw CLIFailure("no Herald data directory at \(dataDirectory) (named by HERALD_DATA_DIR; start `herald serve` with it first)")
        }
        let service = FileManager.default.fileExists(atPath: Self.serviceDataDirectory) ? Self.serviceDataDirectory : nil
        throw CLIFailure(Self.noDefaultDirectory(here: FileManager.default.currentDirectoryPath, service: service))
    }

    /// The data directory of the Debian package's `herald.service` and of the container image (docs/install.md).
    static let serviceDataDirectory = "/var/lib/herald"

    /// Why a command found no `./herald-data` in `here`: on a machine where the installed service keeps its data in
    /// `service`, the way to it (a newcomer who installed the package runs `herald send` in their home directory).
    static func noDefaultDirectory(here: String, service: String?) -> String {
        guard let service else {
            return "no Herald data directory ./herald-data in \(here) (run `herald serve` here first, or give --data-dir or HERALD_DATA_DIR)"
        }
        return "no Herald data directory ./herald-data in \(here); the installed herald.service keeps its data in \(service): "
            + "give HERALD_DATA_DIR=\(service), as a user who may read it (e.g. sudo -u herald HERALD_DATA_DIR=\(service) herald …)"
    }
}
