import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald tokens`: device tokens, until devices register their own.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Register and unregister device tokens.",
        subcommands: [Register.self, Unregister.self]
    )

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new device token for an app (bundle id).")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "The app's bundle id.") var topic: String
        @Option(help: "sandbox or production.") var environment = "sandbox"

        func run() async throws {
            try await reportingErrors {
                guard Topic.isWellFormed(topic) else { throw CLIFailure("'\(topic)' is not a bundle id") }
                let environment = try parseEnvironment(environment)
                let token = try await withStore(data) { try await $0.registerToken(bundleID: topic, environment: environment, deviceID: nil) }
                print(token.hex)
            }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister a token: later pushes get 410 Unregistered.")
        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "The device token (hex).") var token: String

        func run() async throws {
            try await reportingErrors {
                guard let deviceToken = DeviceToken(hex: token) else { throw CLIFailure("'\(token)' is not a device token") }
                let record = try await withStore(data) { try await $0.unregister(deviceToken, atMilliseconds: SystemWallClock().nowMilliseconds()) }
                // A running `herald serve` sees the file's change within its registry refresh interval (its gateway then
                // answers `410`, its engine discards what waited); returning after two intervals means a push sent once
                // this command has returned gets `410` (docs/delivery.md, rule 14).
                let interval = SQLiteStore.Configuration(dataDirectory: "").registryRefreshIntervalMilliseconds
                try await Task.sleep(for: .milliseconds(2 * interval))
                print("unregistered \(record.token.hex) at \(record.unregisteredAtMilliseconds ?? 0)")
            }
        }
    }
}
