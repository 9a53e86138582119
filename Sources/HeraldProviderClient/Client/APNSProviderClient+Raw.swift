import NIOHPACK

extension APNSProviderClient {
    /// Sends a request as given (``ProviderRawRequest``) on the shared connection and waits for the answer, with the
    /// same deadline, retry and token handling as `send(_: APNSRequest)`.
    ///
    /// - Returns: the answer, whatever its status.
    /// - Throws: ``APNSProviderClientError/invalidRequest`` for a method or path that cannot travel, or a field name or
    ///   value HTTP/2 forbids (RFC 9113 §8.2.1: names in lower case, no pseudo-header, no NUL, CR or LF);
    ///   ``APNSProviderClientError`` when there is no answer, as for `send(_: APNSRequest)`.
    public func send(_ request: ProviderRawRequest) async throws -> ProviderRawResponse {
        let answer = try await exchange(payload: request.body) { authorization in try headers(for: request, authorization: authorization) }
        return ProviderRawResponse(answer)
    }

    /// The raw request's header block: pseudo-headers, the provider token unless the request carries its own
    /// `authorization`, then its fields in order.
    func headers(for request: ProviderRawRequest, authorization: String?) throws(APNSProviderClientError) -> HPACKHeaders {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenCharacter) else {
            throw .invalidRequest.with("the method '\(request.method)' is not an HTTP token")
        }
        guard request.path.hasPrefix("/"), request.path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidRequest.with("the path '\(request.path)' does not start with / or has characters a path cannot carry")
        }
        var headers = HPACKHeaders()
        headers.reserveCapacity(5 + request.fields.count)
        headers.add(name: ":method", value: request.method)
        headers.add(name: ":scheme", value: scheme)
        headers.add(name: ":path", value: request.path)
        headers.add(name: ":authority", value: authority)
        let ownAuthorization = request.fields.contains { $0.name == "authorization" }
        if let authorization, !ownAuthorization { headers.add(name: "authorization", value: authorization) }
        for field in request.fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy({ Self.isTokenCharacter($0) && !(0x41...0x5A).contains($0) }) else {
                throw .invalidRequest.with("the field name '\(field.name)' is not a lower-case HTTP token")
            }
            guard !field.value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
                throw .invalidRequest.with("\(field.name) contains NUL, CR or LF")
            }
            headers.add(name: field.name, value: field.value)
        }
        return headers
    }

    /// RFC 9110 §5.6.2's `tchar`: what a method or a field name is made of.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
