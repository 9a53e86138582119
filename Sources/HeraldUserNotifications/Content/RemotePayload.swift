import Foundation

/// An APNs payload as the device reads it (spec §B): the `aps` keys that drive the runtime and
/// the content they produce.
public struct RemotePayload: Sendable, Hashable {
    /// Why a payload cannot be read.
    public struct Invalid: Error, Sendable, Hashable {
        /// The reason.
        public let reason: String
    }

    /// The whole payload (it becomes the content's `userInfo`).
    public let dictionary: [String: JSONValue]

    /// Reads a payload dictionary (`[String: Any]`, as `JSONSerialization` makes it).
    public init(_ payload: [String: Any]) throws {
        guard let dictionary = JSONValue(any: payload)?.dictionaryValue else { throw Invalid(reason: "not a dictionary") }
        try self.init(values: dictionary)
    }

    /// Reads a JSON payload.
    public init(json: Data) throws {
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: json), let dictionary = object.dictionaryValue else {
            throw Invalid(reason: "the payload is not a JSON object")
        }
        try self.init(values: dictionary)
    }

    /// Reads a payload of JSON values.
    public init(values: [String: JSONValue]) throws {
        if let aps = values["aps"], aps.objectValue == nil { throw Invalid(reason: "aps is not a dictionary") }
        dictionary = values
    }

    /// The `aps` dictionary.
    public var aps: [String: JSONValue] { dictionary["aps"]?.dictionaryValue ?? [:] }

    /// Whether `content-available` is present. Following seed 003, the key's presence counts:
    /// to make a push non-background, remove the key — `0` does not turn it off.
    public var isContentAvailable: Bool { aps["content-available"] != nil }

    /// Whether `mutable-content` is 1.
    public var isMutableContent: Bool { aps["mutable-content"]?.intValue == 1 }

    /// The content shown for this payload; `loc-key`s are looked up in `localizedStrings`
    /// (the key itself is the format when missing, as iOS shows it).
    public func content(localizedStrings: [String: String] = [:]) -> NotificationContentValue {
        var content = NotificationContentValue()
        let aps = aps
        switch aps["alert"] {
        case .string(let body):
            content.body = body
        case .object(let alert):
            func text(_ key: String, _ locKey: String, _ argsKey: String) -> String {
                if let format = alert[locKey]?.stringValue {
                    let args = alert[argsKey]?.arrayValue?.compactMap { $0.stringValue ?? $0.intValue.map(String.init) } ?? []
                    return Self.format(localizedStrings[format] ?? format, args)
                }
                return alert[key]?.stringValue ?? ""
            }
            content.title = text("title", "title-loc-key", "title-loc-args")
            content.subtitle = text("subtitle", "subtitle-loc-key", "subtitle-loc-args")
            content.body = text("body", "loc-key", "loc-args")
            content.launchImageName = alert["launch-image"]?.stringValue ?? ""
            content.summaryArgument = alert["summary-arg"]?.stringValue ?? ""
            content.summaryArgumentCount = alert["summary-arg-count"]?.intValue ?? 0
        default:
            break
        }
        content.badge = aps["badge"]?.intValue
        content.sound = UNNotificationSound.fromPayload(aps["sound"])
        content.threadIdentifier = aps["thread-id"]?.stringValue ?? ""
        content.categoryIdentifier = aps["category"]?.stringValue ?? ""
        content.targetContentIdentifier = aps["target-content-id"]?.stringValue
        content.interruptionLevel = aps["interruption-level"]?.stringValue.flatMap(UNNotificationInterruptionLevel.init(payloadValue:)) ?? .active
        content.relevanceScore = min(1, max(0, aps["relevance-score"]?.doubleValue ?? 0))
        content.filterCriteria = aps["filter-criteria"]?.stringValue
        content.userInfo = dictionary
        return content
    }

    /// Substitutes `%@` (in order) and `%n$@` (by position).
    static func format(_ format: String, _ args: [String]) -> String {
        var result = format
        for (index, arg) in args.enumerated() {
            result = result.replacingOccurrences(of: "%\(index + 1)$@", with: arg)
        }
        var next = 0
        while let range = result.range(of: "%@") {
            result.replaceSubrange(range, with: next < args.count ? args[next] : "")
            next += 1
        }
        return result
    }
}
