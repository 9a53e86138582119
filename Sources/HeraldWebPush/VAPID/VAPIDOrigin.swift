/// An origin as VAPID's `aud` claim names one (RFC 8292 §2: "the origin of the push resource"; RFC 6454):
/// `scheme://host[:port]`, compared with the scheme and host in any case and the scheme's default port implied.
///
/// Anything else — a path (even `/`), a query, user information, no host — is not an origin *(chosen: the libraries
/// write the origin bare, and a trailing slash is a common hand-written mistake worth showing)*.
struct VAPIDOrigin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ text: String) {
        guard text.utf8.count <= 2048, let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        let authority = text[separator.upperBound...]
        let defaultPort: Int
        switch scheme {
        case "https": defaultPort = 443
        case "http": defaultPort = 80
        default: return nil
        }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \t".contains($0) }) else { return nil }
        var host = Substring(authority)
        var port = defaultPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()), (1...65_535).contains(number) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(number) else { return nil }
            port = number
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }
}
