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
                let store = try openStore(data)
                do {
                    let app = try await store.addApp(bundleID: bundleID, teamID: teamID)
                    await store.shutdown()
                    print("\(app.bundleID) belongs to team \(app.teamID)")
                } catch let error as StoreError where error == .appOfAnotherTeam {
                    await store.shutdown()
                    throw CLIFailure("\(error.description); run `herald apps remove \(bundleID)` first to move it")
                } catch let error as StoreError where error == .invalidRecord {
                    await store.shutdown()
                    throw CLIFailure("'\(teamID)' is not a team id (1–64 letters, digits, '.', '_' or '-')")
                } catch {
                    await store.shutdown()
                    throw error
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
                let store = try openStore(data)
                let apps: [AppRecord]
                do {
                    apps = try await store.apps()
                    await store.shutdown()
                } catch {
                    await store.shutdown()
                    throw error
                }
                for app in apps {
                    if json {
                        print(try OutputFormat.jsonLine(["bundleID": app.bundleID, "teamID": app.teamID, "createdAt": app.createdAtMilliseconds]))
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
                let store = try openStore(data)
                do {
                    try await store.removeApp(bundleID: bundleID)
                    await store.shutdown()
                    print("\(bundleID) belongs to no team")
                } catch let error as StoreError where error == .unknownApp {
                    await store.shutdown()
                    throw CLIFailure("no app \(bundleID) has a team (herald apps list)")
                } catch {
                    await store.shutdown()
                    throw error
                }
            }
        }
    }
}
