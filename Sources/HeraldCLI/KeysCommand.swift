import ArgumentParser
import Foundation
import HeraldAuth
import HeraldCore
import HeraldPostgres
import HeraldServer
import HeraldStore
import Logging

/// `herald keys`: provider signing keys (token authentication).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage provider signing keys (.p8) for token authentication.",
        subcommands: [Add.self, Generate.self, List.self, Token.self]
    )

    /// The options that describe a key's scope.
    struct ScopeOptions: ParsableArguments {
        @Option(help: "Where the key is valid: sandbox, production or both.")
        var environment = "both"

        @Option(help: "Comma-separated topics for a topic-specific key (default: every topic of the team).")
        var topics: String?

        var scope: SigningKeyScope {
            get throws {
                guard let scope = SigningKeyScope(rawValue: environment) else {
                    throw CLIFailure("unknown environment '\(environment)' (expected sandbox, production or both)")
                }
                return scope
            }
        }

        var topicList: [String]? {
            topics.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register an existing .p8 key.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "The .p8 file.") var p8: String
        @Option(name: .customLong("key-id"), help: "The key id (kid).") var keyID: String
        @Option(name: .customLong("team-id"), help: "The team id (iss).") var teamID: String
        @OptionGroup var scope: ScopeOptions

        func run() async throws {
            try await reportingErrors {
                try SystemError.requireReadable(p8)
                let key = try PrivateSigningKey(keyID: keyID, teamID: teamID, contentsOf: URL(fileURLWithPath: p8))
                try await register(key, scope: scope, data: data)
                print("registered key \(keyID) of team \(teamID) (\(try scope.scope))")
            }
        }
    }

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new .p8 key for development and register it.",
            discussion: """
                The key is written to <data-dir>/keys/AuthKey_<KEYID>.p8 (mode 0600), where `herald send` and \
                `herald keys token` find it, and never into the current directory unless --out says so. With several \
                keys there, those commands need --key-id: the development key `herald serve` made is one of them.
                """
        )
        @OptionGroup var data: DataDirectoryOptions
        @Option(name: .customLong("key-id"), help: "The key id (default: random, 10 characters).") var keyID: String?
        @Option(name: .customLong("team-id"), help: "The team id.") var teamID: String
        @Option(help: "Also write the .p8 file here.") var out: String?
        @Flag(
            inversion: .prefixedNo,
            help: "Keep the key in <data-dir>/keys/AuthKey_<KEYID>.p8, where `herald send` finds it (--no-keep needs --out)."
        )
        var keep = true
        @OptionGroup var scope: ScopeOptions

        func run() async throws {
            try await reportingErrors {
                guard keep || out != nil else { throw CLIFailure("--no-keep needs --out FILE (the key must be written somewhere)") }
                if let out { try SystemError.requireWritable(out) }
                let key = try PrivateSigningKey.generate(teamID: teamID, keyID: keyID ?? SigningKey.randomID())
                // Register first: a refused registration (an existing key id) must not overwrite a .p8 file.
                try await register(key, scope: scope, data: data)
                var written: [String] = []
                if let out {
                    try key.write(p8To: URL(fileURLWithPath: out))
                    written.append(out)
                }
                if keep {
                    let kept = data.keysDirectory.appendingPathComponent(ProviderKeyLocator.fileName(keyID: key.keyID))
                    try key.write(p8To: kept)
                    written.append(kept.path)
                }
                print(written[0])
                let note = "registered key \(key.keyID) of team \(teamID); wrote \(written.joined(separator: " and "))"
                FileHandle.standardError.write(Data("\(note)\n".utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered keys.")
        @OptionGroup var data: DataDirectoryOptions

        func run() async throws {
            try await reportingErrors {
                let store = try await openStore(data)
                for key in try await store.signingKeys() {
                    print("\(key.keyID)  team \(key.teamID)  \(key.scope)  topics \(key.topics?.joined(separator: ",") ?? "all")")
                }
                await store.shutdown()
            }
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a provider token (JWT, ES256) for the authorization header.",
            discussion: """
                Without options it signs with the key `herald send` uses: the one kept in <data-dir>/keys (made by \
                `herald serve` on its first start, or by `herald keys generate`), with the team id the data directory \
                registered for it.
                """
        )
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "The .p8 file (default: the key kept in <data-dir>/keys).") var p8: String?
        @Option(name: .customLong("key-id"), help: "The key id (kid; default: from an AuthKey_<KEYID>.p8 file name).") var keyID: String?
        @Option(name: .customLong("team-id"), help: "The team id (iss; default: the one the data directory registered for the key).")
        var teamID: String?
        @Option(help: "Issued-at time in seconds since the epoch (default: now).") var iat: Int64?

        func run() async throws {
            try await reportingErrors {
                let key = try await ProviderKeyLocator.signingKey(keyFile: p8, keyID: keyID, teamID: teamID, data: data, keyFileOption: "--p8")
                print(key.makeToken(issuedAt: iat ?? SystemWallClock().nowSeconds()))
            }
        }
    }
}

private func register(_ key: PrivateSigningKey, scope: KeysCommand.ScopeOptions, data: DataDirectoryOptions) async throws {
    let store = try await openStore(data)
    let record = SigningKeyRecord(
        key: key,
        scope: try scope.scope,
        topics: scope.topicList,
        createdAtMilliseconds: SystemWallClock().nowMilliseconds()
    )
    do {
        try await store.addSigningKey(record)
    } catch {
        await store.shutdown()
        throw error
    }
    await store.shutdown()
}

/// Opens the store for a short CLI command: the PostgreSQL database when one is named (`--database`,
/// `HERALD_DATABASE_URL`), else the data directory's SQLite file (the data directory must exist: `herald serve` makes it).
func openStore(_ data: DataDirectoryOptions) async throws -> any NotificationStore {
    var logger = Logger(label: "herald.store")
    logger.logLevel = .warning
    if let url = data.databaseURL {
        let configuration: PostgresStore.Configuration
        do {
            configuration = try PostgresStore.Configuration(url: url)
        } catch let error as StoreError {
            throw CLIFailure("--database: \(error.detail ?? "\(error)")")
        }
        do {
            return try await PostgresStore.open(configuration: configuration, logger: logger)
        } catch let error as StoreError where error == .unavailable {
            throw unreachableDatabase(configuration, error)
        }
    }
    try data.requireExisting()
    try data.requireWritableDatabase()
    var configuration = SQLiteStore.Configuration(dataDirectory: data.url.path)
    // The disk budget is the server's to keep (it prunes to stay under it); a CLI write is never refused by it.
    configuration.maximumStoreBytes = nil
    return try SQLiteStore(configuration: configuration, logger: logger)
}

/// The one line for a PostgreSQL database that does not answer: where it was looked for, why, and what to check.
func unreachableDatabase(_ configuration: PostgresStore.Configuration, _ error: StoreError) -> CLIFailure {
    CLIFailure(
        "cannot reach the database at \(configuration.serverAddress): \(error.detail ?? "no answer") "
            + "(is PostgreSQL running there? check --database or HERALD_DATABASE_URL)"
    )
}

/// Runs `body` with the data directory's store (``openStore(_:)``) and shuts the store down after it, whether it
/// returned or threw.
func withStore<T>(_ data: DataDirectoryOptions, _ body: (any NotificationStore) async throws -> T) async throws -> T {
    let store = try await openStore(data)
    do {
        let value = try await body(store)
        await store.shutdown()
        return value
    } catch {
        await store.shutdown()
        throw error
    }
}
