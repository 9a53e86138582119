import ArgumentParser
import Foundation
import HeraldCore
import HeraldProviderClient

/// `herald channels`: an app's broadcast channels on a running server, through its provider port, as a provider
/// manages them (docs/broadcast.md).
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, list, show and delete an app's broadcast channels (Live Activities) on a running server.",
        discussion: """
            Each subcommand sends one request of the channel-management API to --server (the local Herald's TLS port \
            by default), signed in as `herald send` is: the key kept in the data directory, --key-file/--key-id/--team-id, \
            or --cert/--cert-key. `herald send --broadcast CHANNEL --topic BUNDLE` then broadcasts on a channel.

            Exit status: 0 when the server did what was asked; 1 when it refused (one line on standard error, or the \
            answer as JSON on standard output with --json), did not answer, or for a bad option value; 64 for a \
            command line that cannot be parsed. See docs/broadcast.md.
            """,
        subcommands: [Create.self, List.self, Show.self, Delete.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel for an app and print its id.")
        @Argument(help: "The app's bundle id, e.g. com.example.app.") var bundleID: String
        @Option(
            name: .customLong("storage-policy"),
            help: "1: keep the most recent broadcast for devices that subscribe later (send --broadcast keeps it 8 hours); 0: keep none."
        )
        var storagePolicy = 1
        @OptionGroup var options: ChannelRequestOptions

        /// The server's answer, whatever its status.
        func answer() async throws -> APNSChannelResponse {
            guard storagePolicy == 0 || storagePolicy == 1 else { throw CLIFailure("--storage-policy must be 0 or 1, not \(storagePolicy)") }
            let policy = APNSMessageStoragePolicy(rawValue: storagePolicy)
            return try await options.request(bundleID: bundleID) { try await $0.createChannel(bundleID: bundleID, storagePolicy: policy) }
        }

        func run() async throws {
            try await reportingErrors { try options.report(try await answer(), as: ChannelsOutput.created) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's channels, oldest first, one id a line.")
        @Argument(help: "The app's bundle id.") var bundleID: String
        @OptionGroup var options: ChannelRequestOptions

        /// The server's answer, whatever its status.
        func answer() async throws -> APNSChannelResponse {
            try await options.request(bundleID: bundleID) { try await $0.allChannels(bundleID: bundleID) }
        }

        func run() async throws {
            try await reportingErrors { try options.report(try await answer(), as: ChannelsOutput.listed) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a channel's configuration: its storage policy and push type.")
        @Argument(help: "The app's bundle id.") var bundleID: String
        @Argument(help: "The channel id (base64), as `herald channels create` printed it.") var channelID: String
        @OptionGroup var options: ChannelRequestOptions

        /// The server's answer, whatever its status.
        func answer() async throws -> APNSChannelResponse {
            try await options.request(bundleID: bundleID) { try await $0.channel(bundleID: bundleID, channelID: channelID) }
        }

        func run() async throws {
            try await reportingErrors { try options.report(try await answer(), as: ChannelsOutput.shown) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel.")
        @Argument(help: "The app's bundle id.") var bundleID: String
        @Argument(help: "The channel id (base64).") var channelID: String
        @OptionGroup var options: ChannelRequestOptions

        /// The server's answer, whatever its status.
        func answer() async throws -> APNSChannelResponse {
            try await options.request(bundleID: bundleID) { try await $0.deleteChannel(bundleID: bundleID, channelID: channelID) }
        }

        func run() async throws {
            try await reportingErrors {
                try options.report(try await answer()) { response, json in ChannelsOutput.deleted(response, channelID: channelID, json: json) }
            }
        }
    }
}

/// What every `herald channels` subcommand takes: the data directory, the server and sign-in, and `--json`.
struct ChannelRequestOptions: ParsableArguments {
    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var connection: ProviderConnectionOptions
    @Flag(help: "Print the answer as one JSON object (a refusal too, on standard output).") var json = false

    /// Checks the bundle id and the connection options, then makes one request and returns the answer.
    func request(
        bundleID: String,
        _ call: (APNSProviderClient) async throws -> APNSChannelResponse
    ) async throws -> APNSChannelResponse {
        connection.warnAboutDeprecatedOptions()
        guard Topic.isWellFormed(bundleID) else { throw CLIFailure("'\(bundleID)' is not a bundle id") }
        let endpoint = try connection.endpoint()
        let authentication = try await connection.authentication(data: data)
        let configuration = connection.configuration(endpoint: endpoint, authentication: authentication, data: data)
        return try await ProviderConnectionOptions.withClient(configuration, label: "herald.channels", call)
    }

    /// Prints a success with `format` (nothing when it is empty); a refusal becomes one line on standard error (or its JSON) and exit status 1.
    func report(_ response: APNSChannelResponse, as format: (APNSChannelResponse, Bool) throws -> String) throws {
        guard response.isSuccess else {
            guard json else { throw CLIFailure(ChannelsOutput.refusal(response)) }
            print(ChannelsOutput.refusalJSON(response))
            throw ExitCode.failure
        }
        let text = try format(response, json)
        if !text.isEmpty { print(text) }
    }
}
