import ArgumentParser
import Foundation
import HeraldCore

/// `herald send --event …`: a Live Activity payload made from options, as one of the payload sources.
///
/// The document is `{"aps":{"timestamp":…,"event":…,"content-state":…,…}}` with the JSON options written as given
/// (after checking that each is a JSON object), so what is sent is what the command line says.
struct LiveActivityOptions: ParsableArguments {
    @Option(help: "A Live Activity payload: start, update or end (aps.event, with aps.timestamp now).")
    var event: String?

    @Option(name: .customLong("content-state"), help: "With --event: aps.content-state, a JSON object.")
    var contentState: String?

    @Option(name: .customLong("attributes-type"), help: "With --event start: aps.attributes-type, the activity's attributes type.")
    var attributesType: String?

    @Option(help: "With --event start: aps.attributes, a JSON object.")
    var attributes: String?

    @Option(name: .customLong("stale-date"), help: "With --event: aps.stale-date, seconds since the epoch or +SECONDS from now.")
    var staleDate: String?

    @Option(name: .customLong("dismissal-date"), help: "With --event: aps.dismissal-date, seconds since the epoch or +SECONDS from now.")
    var dismissalDate: String?

    @Option(name: .customLong("alert-title"), help: "With --event: aps.alert.title (a start needs an alert).")
    var alertTitle: String?

    @Option(name: .customLong("alert-body"), help: "With --event: aps.alert.body (--alert TEXT with --event is the same).")
    var alertBody: String?

    @Flag(name: .customLong("input-push-token"), help: "With --event start: aps.input-push-token 1 (the new activity gets a push token).")
    var inputPushToken = false

    @Option(
        name: .customLong("input-push-channel"),
        help: "With --event start: aps.input-push-channel, the channel the new activity follows (`herald channels create`)."
    )
    var inputPushChannel: String?

    /// The events Apple defines; a broadcast takes `update` and `end` only (the server answers for that).
    static let events = ["start", "update", "end"]

    /// The payload, or `nil` without `--event`.
    ///
    /// - Parameters:
    ///   - now: `aps.timestamp`, and the time `+SECONDS` counts from.
    ///   - alert: `--alert TEXT`, which with `--event` is the alert's body.
    ///   - attributesType: `aps.attributes-type` when `--attributes-type` is not given (the push-to-start token's type).
    /// - Throws: ``CLIFailure`` for an unknown event, an option without `--event`, a start-only option without
    ///   `start`, a JSON option that is not an object, or a date that is not seconds.
    func payload(now: Date, alert: String? = nil, attributesType fallbackType: String? = nil) throws -> [UInt8]? {
        guard let event else {
            let given: [(String, Bool)] = [
                ("--content-state", contentState != nil), ("--attributes-type", attributesType != nil), ("--attributes", attributes != nil),
                ("--stale-date", staleDate != nil), ("--dismissal-date", dismissalDate != nil), ("--alert-title", alertTitle != nil),
                ("--alert-body", alertBody != nil), ("--input-push-token", inputPushToken), ("--input-push-channel", inputPushChannel != nil),
            ]
            if let name = given.first(where: \.1)?.0 { throw CLIFailure("\(name) goes with --event") }
            return nil
        }
        guard Self.events.contains(event) else { throw CLIFailure("--event must be start, update or end, not '\(event)'") }
        if event != "start", attributesType != nil || attributes != nil || inputPushToken || inputPushChannel != nil {
            throw CLIFailure("--attributes-type, --attributes, --input-push-token and --input-push-channel go with --event start")
        }
        if inputPushToken, inputPushChannel != nil { throw CLIFailure("give --input-push-token or --input-push-channel, not both") }
        if alert != nil, alertBody != nil { throw CLIFailure("give --alert or --alert-body, not both (with --event, --alert is the body)") }
        let seconds = Int64(now.timeIntervalSince1970)
        var members = [#""timestamp":\#(seconds)"#, #""event":\#(JSONString.quoted(event))"#]
        if let contentState {
            let object = try Self.object(contentState, option: "--content-state")
            members.append(#""content-state":\#(object)"#)
        }
        if let staleDate {
            let date = try Self.date(staleDate, option: "--stale-date", now: seconds)
            members.append(#""stale-date":\#(date)"#)
        }
        if let dismissalDate {
            let date = try Self.date(dismissalDate, option: "--dismissal-date", now: seconds)
            members.append(#""dismissal-date":\#(date)"#)
        }
        if let type = attributesType ?? fallbackType { members.append(#""attributes-type":\#(JSONString.quoted(type))"#) }
        if let attributes {
            let object = try Self.object(attributes, option: "--attributes")
            members.append(#""attributes":\#(object)"#)
        }
        let alertMembers = [("title", alertTitle), ("body", alertBody ?? alert)].compactMap { name, text in
            text.map { #""\#(name)":\#(JSONString.quoted($0))"# }
        }
        if !alertMembers.isEmpty { members.append(#""alert":{\#(alertMembers.joined(separator: ","))}"#) }
        if inputPushToken { members.append(#""input-push-token":1"#) }
        if let inputPushChannel { members.append(#""input-push-channel":\#(JSONString.quoted(inputPushChannel))"#) }
        return Array(#"{"aps":{\#(members.joined(separator: ","))}}"#.utf8)
    }

    /// What a start lacks of the members ActivityKit needs to start an activity (`attributes-type`, `attributes`,
    /// `content-state`, `alert`), as the options that give them; empty when nothing is missing or the event is not
    /// `start`.
    ///
    /// - Parameters:
    ///   - alert: whether `--alert TEXT` was given.
    ///   - typeKnown: whether the attributes type is known without `--attributes-type` (from the push-to-start token
    ///     `herald send` picked).
    func missingForStart(alert: Bool, typeKnown: Bool) -> [String] {
        guard event == "start" else { return [] }
        return [
            ("--attributes-type", attributesType != nil || typeKnown), ("--attributes", attributes != nil),
            ("--content-state", contentState != nil), ("an alert (--alert-title, --alert-body)", alert || alertTitle != nil || alertBody != nil),
        ].filter { !$0.1 }.map(\.0)
    }

    /// The option's text when it is one JSON object.
    private static func object(_ text: String, option: String) throws -> String {
        guard (try? JSONParser.parse(Array(text.utf8)))?.objectValue != nil else {
            throw CLIFailure("\(option) must be a JSON object, not '\(text)'")
        }
        return text
    }

    /// Seconds since the epoch, or `+SECONDS` from `now`.
    private static func date(_ text: String, option: String, now: Int64) throws -> Int64 {
        guard let seconds = SendCommand.epochSeconds(text, now: now) else {
            throw CLIFailure("\(option) must be seconds since the epoch or +SECONDS from now, not '\(text)'")
        }
        return seconds
    }
}
