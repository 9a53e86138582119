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
    /// `apns-channel-id`: the broadcast channel of a channel-management or broadcast request (docs/broadcast.md).
    public var channelID: String?
    /// `apns-request-id`: a channel-management or broadcast request's own id, echoed in the answer.
    public var requestID: String?
    /// Whether one of the headers above was sent more than once (`DuplicateHeaders`).
    public private(set) var hasDuplicates = false

    // Web push (docs/web-push.md): the push service's headers, read on every path and used only on `/push/<id>`.

    /// `:authority`, or `host` when there is none (HTTP/1.1, or an HTTP/2 client that sends `host`): the origin a web
    /// push's VAPID `aud` must name.
    public var authority: String?
    /// `ttl` (RFC 8030 §5.2).
    public var ttl: String?
    /// `urgency` (RFC 8030 §5.3).
    public var urgency: String?
    /// `topic` (RFC 8030 §5.4); not `apns-topic`.
    public var webPushTopic: String?
    /// `content-encoding`.
    public var contentEncoding: String?
    /// `crypto-key` (the draft form of VAPID).
    public var cryptoKey: String?
    /// Whether `ttl`, `urgency`, `topic`, `content-encoding` or `crypto-key` was sent more than once; apart from
    /// ``hasDuplicates`` so that an APNs request that repeats a header Apple ignores is not refused for it.
    public private(set) var hasWebPushDuplicates = false

    /// An empty head.
    public init() {}

    /// One of the header fields the provider API reads.
    public enum Field: Sendable, Hashable {
        case method, path, authorization, apnsID, expiration, priority, topic, pushType, collapseID, channelID, requestID
        // Web push's.
        case authority, host, ttl, urgency, webPushTopic, contentEncoding, cryptoKey
    }

    /// Records one header field; names are compared in lowercase, as HTTP/2 requires.
    public mutating func add(name: String, value: String) {
        if let field = Self.field(named: name.utf8) { add(field, value: value) }
    }

    /// Records one header field already matched by name (HTTP/2 decodes names as bytes, see `field(named:)`).
    public mutating func add(_ field: Field, value: String) {
        switch field {
        case .method: Self.set(&method, value, &hasDuplicates)
        case .path: Self.set(&path, value, &hasDuplicates)
        case .authorization: Self.set(&authorization, value, &hasDuplicates)
        case .apnsID: Self.set(&apnsID, value, &hasDuplicates)
        case .expiration: Self.set(&expiration, value, &hasDuplicates)
        case .priority: Self.set(&priority, value, &hasDuplicates)
        case .topic: Self.set(&topic, value, &hasDuplicates)
        case .pushType: Self.set(&pushType, value, &hasDuplicates)
        case .collapseID: Self.set(&collapseID, value, &hasDuplicates)
        case .channelID: Self.set(&channelID, value, &hasDuplicates)
        case .requestID: Self.set(&requestID, value, &hasDuplicates)
        case .authority: authority = value
        case .host: if authority == nil { authority = value }
        case .ttl: Self.set(&ttl, value, &hasWebPushDuplicates)
        case .urgency: Self.set(&urgency, value, &hasWebPushDuplicates)
        case .webPushTopic: Self.set(&webPushTopic, value, &hasWebPushDuplicates)
        case .contentEncoding: Self.set(&contentEncoding, value, &hasWebPushDuplicates)
        case .cryptoKey: Self.set(&cryptoKey, value, &hasWebPushDuplicates)
        }
    }

    /// The field a header name stands for, comparing ASCII letters without case; nil for a header Herald ignores.
    ///
    /// Why bytes: the HTTP/2 reader matches names without making a `String` for headers Apple ignores. HTTP/1.1
    /// carries names in any case; HTTP/2 names are already lowercase.
    public static func field(named name: some Collection<UInt8>) -> Field? {
        // By length first: most names are rejected without reading them.
        func matches(_ lowercase: StaticString) -> Bool { equalsIgnoringASCIICase(name, lowercase) }
        switch name.count {
        case 3: return matches("ttl") ? .ttl : nil
        case 4: return matches("host") ? .host : nil
        case 5: return matches(":path") ? .path : matches("topic") ? .webPushTopic : nil
        case 7: return matches(":method") ? .method : matches("apns-id") ? .apnsID : matches("urgency") ? .urgency : nil
        case 10:
            return matches("apns-topic") ? .topic : matches(":authority") ? .authority : matches("crypto-key") ? .cryptoKey : nil
        case 13: return matches("authorization") ? .authorization : matches("apns-priority") ? .priority : nil
        case 14: return matches("apns-push-type") ? .pushType : nil
        case 15:
            return matches("apns-expiration") ? .expiration : matches("apns-channel-id") ? .channelID : matches("apns-request-id") ? .requestID : nil
        case 16: return matches("apns-collapse-id") ? .collapseID : matches("content-encoding") ? .contentEncoding : nil
        default: return nil
        }
    }

    private static func equalsIgnoringASCIICase(_ name: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            zip(name, expected).allSatisfy { byte, wanted in
                let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                return lowered == wanted
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
        /// `/1/apps/<bundle>/channels`: channel management (docs/broadcast.md).
        case channels(bundleID: String)
        /// `/1/apps/<bundle>/all-channels`: the app's channel ids.
        case allChannels(bundleID: String)
        /// `/4/broadcasts/apps/<bundle>`: a broadcast to a channel.
        case broadcast(bundleID: String)
        /// Another path under `/1/apps/`: not channel management, but answered as channel management answers (with
        /// `apns-request-id`, never `apns-id`).
        case otherAppPath
        /// `/push/<id>`: a web push to a subscription (docs/web-push.md), with the id as sent.
        case webPush(String)
        /// Any other path.
        case other
    }

    /// Classifies `:path` (a query string is ignored).
    public var pathTarget: PathTarget {
        // On UTF-8 bytes, not Characters: this runs on every request.
        guard let path else { return .other }
        let utf8 = path.utf8
        let end = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        let prefix = "/3/device".utf8
        guard utf8[..<end].starts(with: prefix) else { return Self.otherTarget(path[..<end]) }
        var index = utf8.index(utf8.startIndex, offsetBy: prefix.count)
        if index == end { return .missingToken }
        guard utf8[index] == UInt8(ascii: "/") else { return .other }
        index = utf8.index(after: index)
        if index == end { return .missingToken }
        if utf8[index..<end].contains(UInt8(ascii: "/")) { return .other }
        return .device(String(path[index..<end]))
    }

    /// The channel-management, broadcast and web push paths; `.other` for anything else (off the device-push hot path).
    private static func otherTarget(_ path: Substring) -> PathTarget {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "push", id: a subscription's endpoint. An empty id names no subscription (answered as an unknown one).
        if parts.count == 3, parts[1] == "push" { return .webPush(String(parts[2])) }
        // "", "1", "apps", bundle, "channels" | "all-channels"; "", "4", "broadcasts", "apps", bundle.
        if parts.count == 5, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty {
            switch parts[4] {
            case "channels": return .channels(bundleID: String(parts[3]))
            case "all-channels": return .allChannels(bundleID: String(parts[3]))
            default: return .otherAppPath
            }
        }
        if parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", !parts[4].isEmpty {
            return .broadcast(bundleID: String(parts[4]))
        }
        if parts.count >= 3, parts[1] == "1", parts[2] == "apps" { return .otherAppPath }
        return .other
    }
}
