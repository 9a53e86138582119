import HeraldCore
import HeraldDelivery
import HeraldStore

/// How the inspection API writes the store's records (the schemas of docs/inspection-api.json).
enum InspectionJSON {
    /// `Device`: `{id, name, createdAt, online, screenAt, tokens: [Token]}`, and `nodes` on a cluster node.
    static func write(
        _ device: DeviceRecord,
        tokens: [TokenRecord],
        online: Bool,
        screenAt: Int64?,
        nodes: [String]? = nil,
        into writer: inout JSONTextWriter
    ) {
        writer.beginObject()
        writer.member("id", device.id)
        writer.member("name", device.name)
        writer.member("createdAt", device.createdAtMilliseconds)
        writer.member("online", online || !(nodes ?? []).isEmpty)
        writer.member("screenAt", screenAt)
        if let nodes {
            writer.key("nodes")
            writer.beginArray()
            for node in nodes { writer.string(node) }
            writer.endArray()
        }
        writer.key("tokens")
        writer.beginArray()
        for token in tokens {
            writer.beginObject()
            writer.member("token", token.token.hex)
            writer.member("bundleID", token.bundleID)
            writer.member("environment", token.environment.rawValue)
            writer.member("registeredAt", token.registeredAtMilliseconds)
            writer.member("unregisteredAt", token.unregisteredAtMilliseconds)
            writer.member("kind", token.kind.rawValue)
            writer.member("activityType", token.activityType)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    /// `Notification` (`uniqueID` `null` in production), with `trace` added when given.
    static func write(_ stored: StoredNotification, trace: [TraceEvent]?, into writer: inout JSONTextWriter) {
        let notification = stored.notification
        writer.beginObject()
        writer.member("apnsID", notification.id.text)
        // The sandbox's `apns-unique-id`, which the provider was answered with (NotificationID.uniqueID).
        writer.member("uniqueID", notification.environment == .sandbox ? notification.id.uniqueID.text : nil)
        writer.member("token", notification.token.hex)
        writer.member("topic", notification.topic)
        writer.member("bundleID", notification.bundleID)
        writer.member("environment", notification.environment.rawValue)
        writer.member("pushType", notification.pushType.rawValue)
        writer.member("priority", notification.priority.rawValue)
        writer.member("expiration", notification.expiration)
        writer.member("collapseID", notification.collapseID)
        writer.member("acceptedAt", notification.acceptedAtMilliseconds)
        writer.member("state", stored.state.rawValue)
        writer.key("payload")
        writeObject(notification.payload, into: &writer)
        if let trace { write(trace: trace, into: &writer) }
        writer.endObject()
    }

    /// The member `"trace": [{at, kind, detail}]`.
    static func write(trace: [TraceEvent], into writer: inout JSONTextWriter) {
        writer.key("trace")
        writer.beginArray()
        for event in trace {
            writer.beginObject()
            writer.member("at", event.atMilliseconds)
            writer.member("kind", event.kind.rawValue)
            writer.key("detail")
            if let detail = event.detailJSON { writeObject(Array(detail.utf8), into: &writer) } else { writer.null() }
            writer.endObject()
        }
        writer.endArray()
    }

    /// Writes stored JSON object text as it is; text that is not a JSON object (a damaged row) is written as a string,
    /// so the response stays valid JSON.
    private static func writeObject(_ bytes: [UInt8], into writer: inout JSONTextWriter) {
        if case .object? = try? JSONParser.parse(bytes) {
            writer.rawValue(bytes)
        } else {
            writer.string(String(decoding: bytes, as: UTF8.self))
        }
    }
}
