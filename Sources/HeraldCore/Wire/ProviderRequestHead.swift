/// The request line and `apns-*` headers of a `POST /3/device/<token>`, collected once per stream.
///
/// Apple's server reads only its own headers (spec §A.1, "Ignored headers"); others are accepted and ignored.
public struct ProviderRequestHead: Sendable {
    /// `:method`.
    public var method: String?
    /// `:path`.
    public var path: String?
    /// `authorization`.
    public var authorization: String?
    /// `apns-id`.
    public var apnsID: String?
    /// `apns-expiration`.
    public var expiration: String?
    /// `apns-priority`.
    public var priority: String?
    /// `apns-topic`.
    public var topic: String?
    /// `apns-push-type`.
    public var pushType: String?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// Whether one of the headers above was sent more than once (`DuplicateHeaders`).
    public private(set) var hasDuplicates = false

    /// An empty head.
    public init() {}

    /// Records one header field; names are compared in lowercase, as HTTP/2 requires.
    public mutating func add(name: String, value: String) {
        switch name {
        case ":method": Self.set(&method, value, &hasDuplicates)
        case ":path": Self.set(&path, value, &hasDuplicates)
        case "authorization": Self.set(&authorization, value, &hasDuplicates)
        case "apns-id": Self.set(&apnsID, value, &hasDuplicates)
        case "apns-expiration": Self.set(&expiration, value, &hasDuplicates)
        case "apns-priority": Self.set(&priority, value, &hasDuplicates)
        case "apns-topic": Self.set(&topic, value, &hasDuplicates)
        case "apns-push-type": Self.set(&pushType, value, &hasDuplicates)
        case "apns-collapse-id": Self.set(&collapseID, value, &hasDuplicates)
        default:
            // HTTP/1.1 carries names in any case; HTTP/2 names are already lowercase.
            if name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
                add(name: name.lowercased(), value: value)
            }
        }
    }

    private static func set(_ field: inout String?, _ value: String, _ duplicate: inout Bool) {
        if field != nil { duplicate = true }
        field = value
    }

    /// What `:path` names: a device token (possibly malformed), a missing token, or another path.
    public enum PathTarget: Sendable, Hashable {
        /// `/3/device/<token>`, with the token text as sent.
        case device(String)
        /// `/3/device` or `/3/device/` with nothing after it.
        case missingToken
        /// Any other path.
        case other
    }

    /// Classifies `:path` (a query string is ignored).
    public var pathTarget: PathTarget {
        guard var path else { return .other }
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        let prefix = "/3/device"
        guard path.hasPrefix(prefix) else { return .other }
        let rest = path.dropFirst(prefix.count)
        if rest.isEmpty || rest == "/" { return .missingToken }
        guard rest.first == "/" else { return .other }
        let token = rest.dropFirst()
        if token.contains("/") { return .other }
        return .device(String(token))
    }
}
