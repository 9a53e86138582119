import ArgumentParser
import Foundation
import HeraldCore

/// `herald`: the command-line entry to Herald.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "An APNs-compatible push notification service.",
        discussion: """
            Every command but `faults` and `health` (which talk to a running server's web port) uses the data directory given by \
            --data-dir, else HERALD_DATA_DIR, else ./herald-data if it exists; only `herald serve` creates it. Exit \
            status: 0 on success; 1 with one line `herald: error: …` on standard error; 64 for a command line that \
            cannot be parsed.
            """,
        version: HeraldVersion.current,
        subcommands: [
            ServeCommand.self, SendCommand.self, ChannelsCommand.self, KeysCommand.self, TokensCommand.self, CertsCommand.self,
            NotificationsCommand.self, DevicesCommand.self, DeviceCommand.self, TraceCommand.self, AppsCommand.self, FaultsCommand.self,
            HealthCommand.self,
        ]
    )

    /// ArgumentParser's entry point, after a misspelt command got its own line (``CommandSuggestion``), exit 64.
    static func main() async {
        if let message = CommandSuggestion.message(for: Array(CommandLine.arguments.dropFirst()), root: Herald.self) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// A failure the CLI reports as one line and a non-zero exit.
struct CLIFailure: Error, CustomStringConvertible, Equatable {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ParsableCommand {
    /// Runs a command body, turning any error into one line on standard error and exit code 1.
    func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CLIFailure {
            FileHandle.standardError.write(Data("herald: error: \(error.description)\n".utf8))
            throw ExitCode.failure
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("herald: error: \(SystemError.line(error))\n".utf8))
            throw ExitCode.failure
        }
    }
}
