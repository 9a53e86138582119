/// Reading the provider token out of an `authorization` header value.
///
/// Apple's examples send `bearer <jwt>` (spec §A.2); clients differ in the scheme's case (`Bearer`, `BEARER`) and
/// some add spaces or tabs. Herald reads all of them, as APNs does.
public enum BearerAuthorization {
    /// Tokens longer than this are refused as malformed, so the verified-token cache never holds huge keys
    /// (an ES256 JWT from a real client is about 200 bytes).
    public static let maximumTokenLength = 4096

    /// The token in an `authorization` value.
    ///
    /// - Returns: the token text, ``ProviderTokenError/missing`` for `nil`, an empty value or a scheme with no token
    ///   (`MissingProviderToken`, spec §A.5), ``ProviderTokenError/malformedAuthorization`` when the scheme is not
    ///   `bearer`, and ``ProviderTokenError/malformedToken`` when the token is too long.
    public static func token(in authorization: String?) -> Result<Substring, ProviderTokenError> {
        // On UTF-8 bytes, not Characters, and without allocating: this runs on every request.
        guard let authorization else { return .failure(.missing) }
        let utf8 = authorization.utf8
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else {
            return .failure(.missing)
        }
        let end = utf8.index(after: last)
        let schemeEnd = utf8[first..<end].firstIndex(where: isSpace) ?? end
        guard utf8.distance(from: first, to: schemeEnd) == 6, zip(utf8[first..<schemeEnd], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else {
            return .failure(.malformedAuthorization)
        }
        guard let tokenStart = utf8[schemeEnd..<end].firstIndex(where: { !isSpace($0) }) else { return .failure(.missing) }
        guard utf8.distance(from: tokenStart, to: end) <= maximumTokenLength else { return .failure(.malformedToken) }
        if utf8[tokenStart..<end].contains(where: isSpace) { return .failure(.malformedToken) }
        return .success(authorization[tokenStart..<end])
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
