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
        guard let authorization else { return .failure(.missing) }
        let value = trimmed(Substring(authorization))
        if value.isEmpty { return .failure(.missing) }
        let scheme = value.prefix { !isSpace($0) }
        // Compare the scheme case-insensitively without allocating: this runs on every request.
        guard scheme.utf8.count == 6, zip(scheme.utf8, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else {
            return .failure(.malformedAuthorization)
        }
        let token = trimmed(value.dropFirst(scheme.count))
        if token.isEmpty { return .failure(.missing) }
        guard token.utf8.count <= maximumTokenLength else { return .failure(.malformedToken) }
        if token.contains(where: isSpace) { return .failure(.malformedToken) }
        return .success(token)
    }

    private static func isSpace(_ character: Character) -> Bool {
        character == " " || character == "\t"
    }

    private static func trimmed(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[first...last]
    }
}
