import ArgumentParser
import Foundation
import HeraldProviderClient

/// `herald send`: an APNs client for people, pointed at the local Herald unless told otherwise.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a push notification and print the answer (status, reason, apns-id).",
        discussion: """
            The payload comes from exactly one of: --payload JSON, --payload-file FILE, a .apns file as \
            `xcrun simctl push` takes it, or --alert TEXT. A "Simulator Target Bundle" key is taken out of the payload \
            and is the topic unless --topic is given. Header values are sent as given; the server answers for them.

            Authentication: --key-file/--key-id/--team-id (token), or --cert/--cert-key (certificate). With \
            neither, the one key `herald keys generate` kept in <data-dir>/keys is used, with the team id the data \
            directory registered for it.

            --repeat N sends N times (at --rate R per second, or as fast as the server's stream limit allows), \
            shows progress on standard error, and prints a summary: sent, accepted, each reason, latency.

            Exit status: 0 when every notification was accepted (200); 1 when any was rejected or got no answer; \
            1, with one line on standard error, for a bad option value, a file it cannot read or no connection; \
            64 for a command line that cannot be parsed. See docs/herald-send.md.
            """
    )

    @OptionGroup var data: DataDirectoryOptions

    @Argument(help: "A .apns file: a JSON payload, optionally with \"Simulator Target Bundle\": \"<bundle id>\".")
    var apnsFile: String?

    @Option(help: "The device token (hex); default: the only device in the data directory with the topic's app.")
    var token: String?

    @Option(help: "The payload, inline JSON.")
    var payload: String?

    @Option(name: .customLong("payload-file"), help: "A file with the JSON payload (a .apns file works too).")
    var payloadFile: String?

    @Option(help: "Send {\"aps\":{\"alert\":\"<text>\"}}.")
    var alert: String?

    @Option(help: "apns-topic: the app's bundle id (default: the payload's Simulator Target Bundle).")
    var topic: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type (default: alert; background for a content-available-only payload).")
    var pushType: String?

    @Option(help: "apns-priority: 10, 5 or 1 (default: none, which means 10; 5 for background).")
    var priority: Int?

    @Option(help: "apns-expiration: seconds since the epoch, 0 for now-or-never, or +SECONDS from now.")
    var expiration: String?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "apns-id: a UUID (default: the server makes one).")
    var apnsID: String?

    @OptionGroup var connection: ProviderConnectionOptions

    @Option(name: .customLong("repeat"), help: "Send the notification this many times.")
    var repeatCount = 1

    @Option(help: "With --repeat: notifications per second, evenly paced (default: as fast as the stream limit allows).")
    var rate: Double?

    @Flag(help: "One JSON object per answer (and a final {\"summary\":…} line with --repeat).")
    var json = false

    func run() async throws {
        try await reportingErrors {
            connection.warnAboutDeprecatedOptions()
            let plan = try await resolve(now: Date())
            let allAccepted = try await ProviderConnectionOptions.withClient(plan.configuration, label: "herald.send") { client -> Bool in
                guard plan.repeatCount == 1 else { return try await SendLoad(plan: plan).run(client) }
                let response = try await client.send(plan.request)
                print(plan.json ? SendOutput.jsonLine(response) : SendOutput.line(response))
                return response.isAccepted
            }
            if !allAccepted { throw ExitCode.failure }
        }
    }
}
