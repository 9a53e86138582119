import NIOHPACK

extension APNSProviderClient {
    /// The request's header block: pseudo-headers, `authorization` for token auth, then the `apns-*` headers set.
    ///
    /// - Throws: ``APNSProviderClientError/invalidRequest`` for a token that cannot be a path segment, or a value
    ///   with NUL, CR or LF, which HTTP/2 forbids in a field value (RFC 9113 §8.2.1).
    func headers(for request: APNSRequest, authorization: String?) throws(APNSProviderClientError) -> HPACKHeaders {
        guard request.deviceToken.utf8.allSatisfy(Self.isPathSafe) else {
            throw .invalidRequest.with("the device token '\(request.deviceToken)' has characters a path cannot carry")
        }
        var headers = requestHead(method: "POST", path: "/3/device/" + request.deviceToken, authorization: authorization, fieldCount: 6)
        if let topic = request.topic { try add("apns-topic", topic, to: &headers) }
        if let pushType = request.pushType { try add("apns-push-type", pushType.rawValue, to: &headers) }
        if let priority = request.priority { headers.add(name: "apns-priority", value: String(priority.rawValue)) }
        if let expiration = request.expiration { headers.add(name: "apns-expiration", value: String(expiration)) }
        if let collapseID = request.collapseID { try add("apns-collapse-id", collapseID, to: &headers) }
        if let apnsID = request.apnsID { try add("apns-id", apnsID, to: &headers) }
        return headers
    }

    /// The header block of a channel or broadcast request: pseudo-headers, `authorization`, then `fields` in order.
    ///
    /// - Throws: ``APNSProviderClientError/invalidRequest`` for a bundle id that cannot be a path segment, or a field
    ///   value with NUL, CR or LF.
    func headers(for request: APNSChannelAPIRequest, authorization: String?) throws(APNSProviderClientError) -> HPACKHeaders {
        guard !request.bundleID.isEmpty, request.bundleID.utf8.allSatisfy(Self.isPathSafe) else {
            throw .invalidRequest.with("the bundle id '\(request.bundleID)' has characters a path cannot carry")
        }
        var headers = requestHead(method: request.method, path: request.path, authorization: authorization, fieldCount: request.fields.count)
        for (name, value) in request.fields { try add(name, value, to: &headers) }
        return headers
    }

    /// Pseudo-headers, then `authorization` for token authentication; room for `fieldCount` more fields.
    private func requestHead(method: String, path: String, authorization: String?, fieldCount: Int) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(5 + fieldCount)
        headers.add(name: ":method", value: method)
        headers.add(name: ":scheme", value: scheme)
        headers.add(name: ":path", value: path)
        headers.add(name: ":authority", value: authority)
        if let authorization { headers.add(name: "authorization", value: authorization) }
        return headers
    }

    private func add(_ name: String, _ value: String, to headers: inout HPACKHeaders) throws(APNSProviderClientError) {
        guard !value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
            throw .invalidRequest.with("\(name) contains NUL, CR or LF")
        }
        headers.add(name: name, value: value)
    }

    /// Visible ASCII other than the characters that end or escape a path segment.
    private static func isPathSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x7E: byte != UInt8(ascii: "/") && byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "%")
        default: false
        }
    }
}
