import HeraldCore

/// A message between the web consoles of a cluster's nodes (docs/cluster.md, "The console"): a JSON object that the
/// store carries to every node, each keeping what is for it.
///
/// - `{"from":"node-a","events":[["s",device],["d",device,true],["t",apnsID,"sent"]],"lost":N}`: a node's own live
///   events (screens, connections, trace events); `lost` (optional) counts what did not fit.
/// - `{"from":"node-a","to":"node-b","interact":ref,"deviceID":…,"frame":…}`: run the `interact` frame `frame` (its
///   text) on the device's link that node B holds, and answer `ref`.
/// - `{"from":"node-b","to":"node-a","interacted":ref,"outcome":"done"|"refused"|"offline"|"timedOut","message":…}`.
/// - `{"from":"node-a","watching":true}`: a console reads node A's live events, so the other nodes relay their trace
///   events too.
///
/// Reading is strict and bounded: a message that is not one of these, or over ``maximumBytes``, is `nil`.
public enum ConsoleRelayMessage: Sendable, Hashable {
    /// Live events of the node `from`.
    case events(from: String, [ConsoleChange], lost: Int)
    /// An interaction for a device whose link `to` holds.
    case interact(from: String, to: String, reference: String, deviceID: String, interaction: DeviceLinkInteraction)
    /// How an interaction went, for the node `to` that asked.
    case interacted(from: String, to: String, reference: String, outcome: ConsoleInteractionOutcome)
    /// A console reads the live events of the node `from`.
    case watching(from: String)

    /// The most bytes a message read is allowed (more than any store carries).
    public static let maximumBytes = 64 * 1024

    /// The message's text.
    public var text: String {
        var writer = JSONTextWriter()
        writer.beginObject()
        switch self {
        case .events(let from, let changes, let lost):
            writer.member("from", from)
            writer.key("events")
            writer.beginArray()
            for change in changes { writer.rawValue(Self.event(change)) }
            writer.endArray()
            if lost > 0 { writer.member("lost", lost) }
        case .interact(let from, let to, let reference, let deviceID, let interaction):
            writer.member("from", from)
            writer.member("to", to)
            writer.member("interact", reference)
            writer.member("deviceID", deviceID)
            writer.member("frame", String(decoding: DeviceLinkServerMessage.interact(interaction).frame(), as: UTF8.self))
        case .watching(let from):
            writer.member("from", from)
            writer.member("watching", true)
        case .interacted(let from, let to, let reference, let outcome):
            writer.member("from", from)
            writer.member("to", to)
            writer.member("interacted", reference)
            switch outcome {
            case .done: writer.member("outcome", "done")
            case .refused(let message):
                writer.member("outcome", "refused")
                writer.member("message", message)
            case .offline: writer.member("outcome", "offline")
            case .timedOut: writer.member("outcome", "timedOut")
            case .unreachable(let message):
                writer.member("outcome", "unreachable")
                writer.member("message", message)
            }
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// One event of an `events` message: its JSON array. A `resync` is never relayed (it is what a node makes of a
    /// `lost` count); it encodes as an empty array, which readers skip.
    public static func event(_ change: ConsoleChange) -> [UInt8] {
        var writer = JSONTextWriter(capacity: 64)
        writer.beginArray()
        switch change {
        case .screen(let deviceID):
            writer.string("s")
            writer.string(deviceID)
        case .device(let deviceID, let online):
            writer.string("d")
            writer.string(deviceID)
            writer.bool(online)
        case .trace(let apnsID, let event):
            writer.string("t")
            writer.string(apnsID.text)
            writer.string(event)
        case .resync: break
        }
        writer.endArray()
        return writer.bytes
    }

    /// Reads a message; `nil` for anything that is not one.
    public init?(text: String) {
        guard text.utf8.count <= Self.maximumBytes,
            let object = (try? JSONParser.parse(text.utf8))?.dictionaryValue,
            let from = object["from"]?.stringValue
        else { return nil }
        if let events = object["events"]?.arrayValue {
            let lost = object["lost"]?.intValue ?? 0
            guard lost >= 0 else { return nil }
            self = .events(from: from, events.compactMap(Self.change), lost: lost)
            return
        }
        if object["watching"]?.boolValue == true {
            self = .watching(from: from)
            return
        }
        guard let to = object["to"]?.stringValue else { return nil }
        if let reference = object["interact"]?.stringValue {
            guard let deviceID = object["deviceID"]?.stringValue, let frame = object["frame"]?.stringValue,
                case .interact(let interaction)? = try? DeviceLinkServerMessage(frame: Array(frame.utf8))
            else { return nil }
            self = .interact(from: from, to: to, reference: reference, deviceID: deviceID, interaction: interaction)
            return
        }
        guard let reference = object["interacted"]?.stringValue, let outcome = object["outcome"]?.stringValue else { return nil }
        let message = object["message"]?.stringValue ?? ""
        switch outcome {
        case "done": self = .interacted(from: from, to: to, reference: reference, outcome: .done)
        case "refused": self = .interacted(from: from, to: to, reference: reference, outcome: .refused(message))
        case "offline": self = .interacted(from: from, to: to, reference: reference, outcome: .offline)
        case "timedOut": self = .interacted(from: from, to: to, reference: reference, outcome: .timedOut)
        case "unreachable": self = .interacted(from: from, to: to, reference: reference, outcome: .unreachable(message))
        default: return nil
        }
    }

    /// One event of an `events` message, or `nil` for one this node does not read (skipped, not fatal: a newer node
    /// may send more kinds).
    private static func change(_ value: JSONValue) -> ConsoleChange? {
        guard let fields = value.arrayValue, let kind = fields.first?.stringValue, fields.count >= 2,
            let subject = fields[1].stringValue
        else { return nil }
        switch kind {
        case "s": return .screen(deviceID: subject)
        case "d":
            guard fields.count >= 3, let online = fields[2].boolValue else { return nil }
            return .device(deviceID: subject, online: online)
        case "t":
            guard fields.count >= 3, let event = fields[2].stringValue, let apnsID = NotificationID(subject) else { return nil }
            return .trace(apnsID: apnsID, event: event)
        default: return nil
        }
    }
}
