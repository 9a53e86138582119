import HeraldSimulator
import HeraldUserNotifications

extension Array where Element == DeviceReport {
    /// The event names, in order.
    public var events: [String] { map(\.event.rawValue) }

    /// The first report of an event.
    public func first(_ event: DeviceReport.Event) -> DeviceReport? { first { $0.event == event } }
}

extension DeviceReport {
    /// A string in the detail.
    public func string(_ key: String) -> String? { detail[key]?.stringValue }

    /// A nested value in the detail by path (`after.title`).
    public func value(_ path: String) -> HeraldUserNotifications.JSONValue? {
        var current: HeraldUserNotifications.JSONValue? = .object(detail)
        for part in path.split(separator: ".") {
            current = current?.objectValue?[String(part)]
        }
        return current
    }

    /// A list of strings in the detail.
    public func strings(_ key: String) -> [String] { detail[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
}
