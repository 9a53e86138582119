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

    /// The events Apple defines; a broadcast takes `update` and `end` only (the server answers for that).
    static let events = ["start", "update", "end"]

    /// The payload, or `nil` without `--event`.
    ///
    /// - Parameter now: `aps.timestamp`, and the time `+SECONDS` counts from.
    /// - Throws: ``CLIFailure`` for an unknown event, an option without `--event`, attributes without `start`, a
    ///   JSON option that is not an object, or a date that is not seconds.
    func payload(now: Date) throws -> [UInt8]? {
        guard let event else {
            let given: [(String, String?)] = [
                ("--content-state", contentState), ("--attributes-type", attributesType), ("--attributes", attributes),
                ("--stale-date", staleDate), ("--dismissal-date", dismissalDate),
            ]
            if let name = given.first(where: { $0.1 != nil })?.0 { throw CLIFailure("\(name) goes with --event") }
            return nil
        }
        guard Self.events.contains(event) else { throw CLIFailure("--event must be start, update or end, not '\(event)'") }
        if event != "start", attributesType != nil || attributes != nil {
            throw CLIFailure("--attributes-type and --attributes go with --event start")
        }
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
        if let attributesType { members.append(#""attributes-type":\#(JSONString.quoted(attributesType))"#) }
        if let attributes {
            let object = try Self.object(attributes, option: "--attributes")
            members.append(#""attributes":\#(object)"#)
        }
        return Array(#"{"aps":{\#(members.joined(separator: ","))}}"#.utf8)
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
