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
            `xcrun simctl push` takes it, --alert TEXT, or --event EVENT (a Live Activity payload). A "Simulator Target \
            Bundle" key is taken out of the payload and is the topic unless --topic is given. Header values are sent as \
            given; the server answers for them.

            --broadcast CHANNEL sends to the Live Activities subscribed to a channel (`herald channels create`) of the \
            app --topic names, instead of to a device: push type liveactivity and priority 10 unless given; without \
            --expiration, the channel's storage policy is read first and the expiration keeps the message for 8 hours \
            on a channel that keeps one (policy 1), 0 on one that keeps none.

            Authentication: --key-file/--key-id/--team-id (token), or --cert/--cert-key (certificate). With \
            neither, the one key in <data-dir>/keys (the development key `herald serve` made there on its first \
            start) is used, with the team id the data directory registered for it.

            --repeat N sends N times (at --rate R per second, or as fast as the server's stream limit allows), \
            shows progress on standard error, and prints a summary: sent, accepted, each reason, latency.

            --web-push SUBSCRIPTION.json sends a web push to a subscription's endpoint instead: encrypted for its keys \
            (aes128gcm) and signed with --vapid-key for --subject; --ca-file and --timeout apply. Exit status 0 for 201.

            Exit status: 0 when every notification was accepted (200); 1 when any was rejected or got no answer; \
            1, with one line on standard error, for a bad option value, a file it cannot read or no connection; \
            64 for a command line that cannot be parsed. See docs/herald-send.md.
            """
    )

    @OptionGroup var data: DataDirectoryOptions

    @Argument(help: "A .apns file: a JSON payload, optionally with \"Simulator Target Bundle\": \"<bundle id>\".")
    var apnsFile: String?

    @Option(
        help: """
            The device token (hex); default: the token of the only device in the data directory with the topic's app, of \
            the kind the push needs (the app's; for --event start, push-to-start; for update and end, the activity's).
            """
    )
    var token: String?

    @Option(help: "The payload, inline JSON.")
    var payload: String?

    @Option(name: .customLong("payload-file"), help: "A file with the JSON payload (a .apns file works too).")
    var payloadFile: String?

    @Option(help: "Send {\"aps\":{\"alert\":\"<text>\"}}; with --event, the Live Activity's alert body.")
    var alert: String?

    @Option(help: "apns-topic: the app's bundle id (default: the payload's Simulator Target Bundle); with --web-push, the Topic header.")
    var topic: String?

    @Option(
        name: .customLong("push-type"),
        help: "apns-push-type (default: alert; background for a content-available-only payload; liveactivity for aps.event or --broadcast)."
    )
    var pushType: String?

    @Option(help: "apns-priority: 10, 5 or 1 (default: none, which means 10; 5 for background; 10 for --broadcast).")
    var priority: Int?

    @Option(
        help:
            "apns-expiration: seconds since the epoch, 0 for now-or-never, or +SECONDS from now (default: none; for --broadcast, +28800 on a channel that keeps its message, else 0)."
    )
    var expiration: String?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "apns-id: a UUID (default: the server makes one).")
    var apnsID: String?

    @OptionGroup var liveActivity: LiveActivityOptions

    @Option(help: "Broadcast to this channel (POST /4/broadcasts/apps/<bundle id of --topic>) instead of pushing to a device.")
    var broadcast: String?

    @OptionGroup var connection: ProviderConnectionOptions

    @Option(name: .customLong("repeat"), help: "Send the notification this many times.")
    var repeatCount = 1

    @Option(help: "With --repeat: notifications per second, evenly paced (default: as fast as the stream limit allows).")
    var rate: Double?

    @Flag(help: "One JSON object per answer (and a final {\"summary\":…} line with --repeat).")
    var json = false

    @OptionGroup var webPush: WebPushSendOptions

    func run() async throws {
        if webPush.subscription != nil { return try await runWebPush() }
        try await reportingErrors {
            connection.warnAboutDeprecatedOptions()
            if let stray = webPush.strayOption { throw CLIFailure("\(stray) goes with --web-push") }
            let plan = try await resolve(now: Date())
            let allAccepted = try await ProviderConnectionOptions.withClient(plan.configuration, label: "herald.send") { client -> Bool in
                switch plan.target {
                case .device(let request) where plan.repeatCount > 1:
                    return try await SendLoad(plan: plan, request: request).run(client)
                case .device(let request):
                    let response = try await client.send(request)
                    print(plan.json ? SendOutput.jsonLine(response) : SendOutput.line(response))
                    return response.isAccepted
                case .broadcast(var request):
                    if plan.expirationFollowsChannel {
                        let channel = try? await client.channel(bundleID: request.bundleID, channelID: request.channelID)
                        request.expiration = Self.broadcastExpiration(policy: channel?.configuration?.storagePolicy, now: Date())
                    }
                    let response = try await client.broadcast(request)
                    print(plan.json ? SendOutput.jsonLine(response) : SendOutput.line(response))
                    return response.status == 200
                }
            }
            if !allAccepted { throw ExitCode.failure }
        }
    }
}
