/// The VAPID credentials of a push request, read from its `Authorization` header (and, for the draft form, its
/// `Crypto-Key` header), not yet verified.
///
/// RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<key>`. The scheme's case is free, parameters come in any order with
/// spaces or tabs around them and may be quoted strings; an unknown parameter is ignored (RFC 9110 §11.2). Refused: a
/// parameter repeated, `t` or `k` missing, a `k` that is not a P-256 point, more than
/// ``maximumParameters`` parameters, a header over ``maximumHeaderLength`` bytes.
///
/// The draft form (draft-ietf-webpush-vapid-01), `Authorization: WebPush <JWT>` with the key in
/// `Crypto-Key: p256ecdsa=<key>` (beside `dh=…` when the body is `aesgcm`), is read as ``Scheme/legacyWebPush``;
/// whether it is taken is ``WebPushPolicy/legacyAuthorization``'s decision.
public struct VAPIDAuthorization: Hashable, Sendable {
    /// Which form the credentials came in.
    public enum Scheme: String, Hashable, Sendable {
        /// `Authorization: vapid t=…, k=…` (RFC 8292).
        case vapid
        /// `Authorization: WebPush <JWT>` with `Crypto-Key: p256ecdsa=…` (the draft form).
        case legacyWebPush = "WebPush"
    }

    /// The longest `Authorization` (or `Crypto-Key`) value read, in bytes.
    public static let maximumHeaderLength = 8192
    /// The most parameters read in one header.
    public static let maximumParameters = 8

    /// The form.
    public let scheme: Scheme
    /// The JWT text (`t`).
    public let token: String
    /// The key the JWT claims to be signed with (`k`).
    public let key: VAPIDPublicKey

    /// Reads the credentials.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header's value, or `nil` when there is none.
    ///   - cryptoKey: the `Crypto-Key` header's value, read only for the draft form.
    /// - Throws: ``WebPushRefusal/Rule/vapidMissing``, ``WebPushRefusal/Rule/vapidMalformedHeader`` or
    ///   ``WebPushRefusal/Rule/vapidBadKey``, each explaining what was wrong.
    public init(authorization: String?, cryptoKey: String? = nil) throws(WebPushRefusal) {
        guard let authorization else { throw WebPushRefusal(rule: .vapidMissing, explanation: "VAPID: no Authorization header") }
        let bytes = Array(authorization.utf8)
        guard bytes.count <= Self.maximumHeaderLength else {
            throw Self.malformed("Authorization is \(bytes.count) bytes, over the \(Self.maximumHeaderLength)-byte limit")
        }
        let value = Self.trimmed(bytes[...])
        guard !value.isEmpty else { throw WebPushRefusal(rule: .vapidMissing, explanation: "VAPID: the Authorization header is empty") }
        let schemeEnd = value.firstIndex(where: Self.isSpace) ?? value.endIndex
        let scheme = String(decoding: value[..<schemeEnd], as: UTF8.self)
        let rest = Self.trimmed(value[schemeEnd...])
        switch scheme.lowercased() {
        case "vapid":
            let parameters = try Self.parameters(rest, header: "Authorization")
            guard let token = parameters["t"] else { throw Self.malformed("Authorization has no t= parameter (the JWT)") }
            guard let key = parameters["k"] else { throw Self.malformed("Authorization has no k= parameter (the public key)") }
            guard !token.isEmpty else { throw Self.malformed("Authorization's t= is empty") }
            self.scheme = .vapid
            self.token = token
            self.key = try VAPIDPublicKey(base64URL: key, field: "k")
        case "webpush":
            guard !rest.isEmpty, !rest.contains(where: Self.isSpace) else {
                throw Self.malformed("Authorization: WebPush must be followed by one JWT")
            }
            guard let cryptoKey else {
                throw Self.malformed("Authorization: WebPush (the draft form) needs Crypto-Key: p256ecdsa=<key>, and there is no Crypto-Key")
            }
            guard cryptoKey.utf8.count <= Self.maximumHeaderLength else {
                throw Self.malformed("Crypto-Key is \(cryptoKey.utf8.count) bytes, over the \(Self.maximumHeaderLength)-byte limit")
            }
            let parameters = try Self.parameters(
                Array(cryptoKey.utf8)[...],
                header: "Crypto-Key",
                separators: [UInt8(ascii: ","), UInt8(ascii: ";")]
            )
            guard let key = parameters["p256ecdsa"] else { throw Self.malformed("Crypto-Key has no p256ecdsa= (the VAPID public key)") }
            self.scheme = .legacyWebPush
            self.token = String(decoding: rest, as: UTF8.self)
            self.key = try VAPIDPublicKey(base64URL: key, field: "Crypto-Key p256ecdsa")
        default:
            throw Self.malformed("Authorization's scheme \(WebPushRefusal.quoted(scheme)) is not vapid (RFC 8292: vapid t=<JWT>, k=<key>)")
        }
    }

    private static func malformed(_ what: String) -> WebPushRefusal {
        WebPushRefusal(rule: .vapidMalformedHeader, explanation: "VAPID: " + what)
    }

    /// `name=value` parameters separated by `separators`, names lowercased; values may be quoted strings (without
    /// escapes). Empty elements are skipped, as RFC 9110 §5.6.1 allows.
    private static func parameters(
        _ bytes: ArraySlice<UInt8>,
        header: String,
        separators: Set<UInt8> = [UInt8(ascii: ",")]
    ) throws(WebPushRefusal) -> [String: String] {
        var result: [String: String] = [:]
        var count = 0
        var index = bytes.startIndex
        func skipSpace() { while index < bytes.endIndex, isSpace(bytes[index]) { index += 1 } }
        while true {
            while index < bytes.endIndex, isSpace(bytes[index]) || separators.contains(bytes[index]) { index += 1 }
            guard index < bytes.endIndex else { break }
            let nameStart = index
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: "="), !isSpace(bytes[index]), !separators.contains(bytes[index]) {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "=") else {
                throw malformed("\(header)'s parameter \(WebPushRefusal.quoted(name)) has no =")
            }
            index += 1
            skipSpace()
            let value: String
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                let valueStart = index
                while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
                guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else {
                    throw malformed("\(header)'s parameter \(WebPushRefusal.quoted(name)) has an unterminated or escaped quoted string")
                }
                value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                index += 1
            } else {
                let valueStart = index
                while index < bytes.endIndex, !isSpace(bytes[index]), !separators.contains(bytes[index]) { index += 1 }
                value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
            }
            skipSpace()
            guard index == bytes.endIndex || separators.contains(bytes[index]) else {
                throw malformed("\(header)'s parameter \(WebPushRefusal.quoted(name)) is followed by text that is not a separator")
            }
            count += 1
            guard count <= maximumParameters else { throw malformed("\(header) has more than \(maximumParameters) parameters") }
            guard result.updateValue(value, forKey: name) == nil else { throw malformed("\(header) has \(WebPushRefusal.quoted(name + "=")) twice") }
        }
        return result
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
