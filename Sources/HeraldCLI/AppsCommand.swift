import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald apps`: which team each app belongs to (docs/provider-api.md, "Apps and teams").
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Say which team an app belongs to: token-auth pushes to it must then be signed by that team's keys.",
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that an app (bundle id) belongs to a team; a key of another team then gets 400 TopicDisallowed."
        )
        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "The app's bundle id, e.g. com.example.app.") var bundleID: String
        @Option(name: .customLong("team"), help: "The team id (the JWT's iss), e.g. HERALDTEAM.") var teamID: String

        func run() async throws {
            try await reportingErrors {
                guard Topic.isWellFormed(bundleID) else { throw CLIFailure("'\(bundleID)' is not a bundle id") }
                do {
                    let app = try await withStore(data) { try await $0.addApp(bundleID: bundleID, teamID: teamID) }
                    print("\(app.bundleID) belongs to team \(app.teamID)")
                } catch let error as StoreError where error == .appOfAnotherTeam {
                    throw CLIFailure("\(error.description); run `herald apps remove \(bundleID)` first to move it")
                } catch let error as StoreError where error == .invalidRecord {
                    throw CLIFailure("'\(teamID)' is not a team id (1–64 letters, digits, '.', '_' or '-')")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps with a team.")
        @OptionGroup var data: DataDirectoryOptions
        @Flag(help: "One JSON object per line.") var json = false

        func run() async throws {
            try await reportingErrors {
                for app in try await withStore(data, { try await $0.apps() }) {
                    if json {
                        print(
                            OutputFormat.jsonLine([
                                "bundleID": .string(app.bundleID), "teamID": .string(app.teamID), "createdAt": .integer(app.createdAtMilliseconds),
                            ])
                        )
                    } else {
                        print("\(app.bundleID)  team \(app.teamID)  since \(OutputFormat.iso8601(milliseconds: app.createdAtMilliseconds))")
                    }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget an app's team: keys of any team may push to it again.")
        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "The app's bundle id.") var bundleID: String

        func run() async throws {
            try await reportingErrors {
                do {
                    try await withStore(data) { try await $0.removeApp(bundleID: bundleID) }
                    print("\(bundleID) belongs to no team")
                } catch let error as StoreError where error == .unknownApp {
                    throw CLIFailure("no app \(bundleID) has a team (herald apps list)")
                }
            }
        }
    }
}
