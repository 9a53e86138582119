import ArgumentParser
import Foundation
import HeraldProviderClient
import Logging

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

    @Option(name: .customLong("key-file"), help: "Token auth: the .p8 key.")
    var keyFile: String?

    @Option(name: .customLong("key-id"), help: "Token auth: the key id (default: from an AuthKey_<KEYID>.p8 file name).")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Token auth: the team id (default: the one the data directory registered for the key).")
    var teamID: String?

    @Option(help: "Certificate auth: the client certificate (PEM), as `herald certs issue` writes it.")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "Certificate auth: the certificate's private key (PEM).")
    var certKey: String?

    @Option(help: "The server: https://host:port (TLS, ALPN h2) or http://host:port (h2c).")
    var server = SendCommand.defaultURL

    /// `--server`'s old name, kept (hidden) so that scripts written for it still work.
    @Option(name: .customLong("url"), help: .hidden)
    var deprecatedURL: String?

    /// The server's URL: `--server`, or the deprecated `--url`.
    var url: String { deprecatedURL ?? server }

    @Option(name: .customLong("ca-file"), help: "Trust only this CA (PEM); default: <data-dir>/tls/ca.pem and the system's CAs.")
    var caFile: String?

    @Option(name: .customLong("repeat"), help: "Send the notification this many times.")
    var repeatCount = 1

    @Option(help: "With --repeat: notifications per second, evenly paced (default: as fast as the stream limit allows).")
    var rate: Double?

    @Option(help: "Seconds to wait for each answer (and for the connection).")
    var timeout: Double = 30

    @Flag(help: "One JSON object per answer (and a final {\"summary\":…} line with --repeat).")
    var json = false

    static let defaultURL = "https://localhost:2197"

    func run() async throws {
        try await reportingErrors {
            if deprecatedURL != nil {
                FileHandle.standardError.write(Data("herald: warning: --url is deprecated; use --server (the name herald device uses)\n".utf8))
            }
            let plan = try await resolve(now: Date())
            var logger = Logger(label: "herald.send")
            logger.logLevel = .warning
            let client = try APNSProviderClient(configuration: plan.configuration, logger: logger)
            let allAccepted: Bool
            do {
                try await connect(client, plan: plan)
                allAccepted = plan.repeatCount == 1 ? try await sendOnce(client, plan: plan) : try await SendLoad(plan: plan).run(client)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            if !allAccepted { throw ExitCode.failure }
        }
    }

    /// Connects first, so a server that is not there is one clear line rather than a failed notification.
    private func connect(_ client: APNSProviderClient, plan: SendPlan) async throws {
        do {
            try await client.connect()
        } catch let error as APNSProviderClientError
            where error == .connectFailed && ["localhost", "127.0.0.1", "::1"].contains(plan.configuration.endpoint.host)
        {
            throw CLIFailure("\(error) (is `herald serve` running? --server takes its TLS: or cleartext: URL)")
        }
    }

    private func sendOnce(_ client: APNSProviderClient, plan: SendPlan) async throws -> Bool {
        let response = try await client.send(plan.request)
        print(plan.json ? SendOutput.jsonLine(response) : SendOutput.line(response))
        return response.isAccepted
    }
}
