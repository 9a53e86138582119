import Foundation

/// Who may use the web port's API, decided per request before any responder runs (docs/console.md, "Access").
///
/// Why: the web port sends pushes and interactions on a developer's behalf, and any page a browser opens can
/// send requests to `127.0.0.1`. So a state-changing request must come from the console's own origin and carry
/// JSON (a cross-site form cannot send `application/json` without a CORS preflight, which Herald never grants);
/// the `Host` of a loopback server must be a loopback name (a DNS-rebinding page has its own host name); and with
/// an API token, every `/api/` and `/metrics` request must present it.
public struct WebAccessPolicy: Sendable {
    /// The name of the cookie the console keeps the API token in (`HttpOnly`, `SameSite=Strict`).
    public static let tokenCookie = "herald_api_token"

    /// The bearer token `/api/` and `/metrics` require; `nil`: none.
    public var apiToken: String?
    /// Whether the server listens on a loopback address only: then `Host` must name loopback.
    public var loopbackOnly: Bool

    /// Creates a policy.
    public init(apiToken: String? = nil, loopbackOnly: Bool = true) {
        self.apiToken = apiToken
        self.loopbackOnly = loopbackOnly
    }

    /// The error response for a request the policy refuses, or `nil` when it may go on.
    public func refusal(of request: WebRequest) -> WebResponse? {
        let host = request.header("host")
        if loopbackOnly, let host, !Self.isLoopbackHost(host) {
            return .error(status: 403, "Host '\(host)' is not a loopback name; this server answers 127.0.0.1, [::1] and localhost only")
        }
        // A browser page may open a WebSocket to any origin without asking; devices send no `Origin`.
        if request.path == WebServer.linkPath, let origin = request.header("origin"), !Self.isSameOrigin(origin, host: host) {
            return .error(status: 403, "a device link from origin '\(origin)' is refused")
        }
        let isAPI = request.path == "/metrics" || request.path.hasPrefix("/api/")
        guard isAPI else { return nil }
        if let apiToken, !presentsToken(apiToken, in: request) {
            var response = WebResponse.error(
                status: 401,
                "this server needs its API token: 'authorization: Bearer <token>' (herald serve --api-token)"
            )
            response.headers["www-authenticate"] = #"Bearer realm="herald""#
            return response
        }
        guard Self.changesState(request.method) else { return nil }
        if let origin = request.header("origin"), !Self.isSameOrigin(origin, host: host) {
            return .error(status: 403, "a \(request.method) from origin '\(origin)' is refused: only the console's own origin may change state")
        }
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" {
            return .error(status: 403, "a \(request.method) from a \(site) page is refused: only the console's own origin may change state")
        }
        if !request.body.isEmpty, !Self.isJSON(request.header("content-type")) {
            return .error(status: 415, "a \(request.method) body must be JSON: send 'content-type: application/json'")
        }
        return nil
    }

    /// `GET /?token=<token>` (the console URL `herald serve` prints when it has a token): keeps the token in the
    /// console's cookie and redirects to the page without it, so the token leaves the address bar and history.
    ///
    /// `nil` for every other request; `401` for a wrong token.
    public func consoleLogin(_ request: WebRequest) -> WebResponse? {
        guard let apiToken, request.method == "GET", !request.path.hasPrefix("/api/"), let offered = request.queryValue("token") else {
            return nil
        }
        guard Self.constantTimeEqual(offered, apiToken) else { return .error(status: 401, "the token in the console's URL is not this server's") }
        let cookie = "\(Self.tokenCookie)=\(apiToken); Path=/; HttpOnly; SameSite=Strict"
        return WebResponse(status: 303, headers: ["location": request.path, "set-cookie": cookie, "cache-control": "no-store"])
    }

    /// Whether a token can travel in a cookie and a header unchanged: 16–256 visible ASCII characters other than
    /// `;`, `,`, `"` and `\`.
    public static func isValidToken(_ token: String) -> Bool {
        (16...256).contains(token.utf8.count)
            && token.utf8.allSatisfy {
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            }
    }

    /// Whether the method may change state (anything but `GET`, `HEAD` and `OPTIONS`).
    static func changesState(_ method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
    }

    /// Whether the request carries the token, as a bearer token or the console's cookie; compared in constant time.
    func presentsToken(_ token: String, in request: WebRequest) -> Bool {
        if let authorization = request.header("authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer", Self.constantTimeEqual(String(parts[1]), token) { return true }
        }
        for cookieHeader in request.headers where cookieHeader.name.lowercased() == "cookie" {
            for cookie in cookieHeader.value.split(separator: ";") {
                let pair = cookie.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == Self.tokenCookie else { continue }
                if Self.constantTimeEqual(pair[1].trimmingCharacters(in: .whitespaces), token) { return true }
            }
        }
        return false
    }

    /// Whether `origin` (`scheme://host[:port]`) is the origin of a page served from `host` (the `Host` header).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let hostName = host?.lowercased() else { return false }
        let lowered = origin.lowercased()
        return lowered == "http://" + hostName || lowered == "https://" + hostName
    }

    /// Whether a listening address is loopback only (`127.x.y.z`, `::1`, `localhost`); `0.0.0.0` and `::` are not.
    public static func isLoopbackAddress(_ address: String) -> Bool {
        let bare = address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : address
        return bare == "::1" || isLoopbackHost(bare)
    }

    /// Whether a `Host` header names loopback: `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
    static func isLoopbackHost(_ value: String) -> Bool {
        var name = Substring(value.lowercased())
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return false }
            return name[name.index(after: name.startIndex)..<close] == "::1"
        }
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether a `content-type` is JSON (`application/json`, with parameters).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}

extension WebRequest {
    /// The first header field with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }
}
