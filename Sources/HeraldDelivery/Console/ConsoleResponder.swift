/// The web console on the web port (docs/console.md): `GET /` and `GET /console` answer one self-contained HTML page
/// (inline CSS and JavaScript, no external resources) that sends pushes, draws each device's screen and follows
/// delivery traces through the JSON API under `/api/v1/`.
///
/// Other methods on its paths get `405`; every other path (`/api/…`, `/metrics`, `/device-link`) is left to the
/// next ``WebResponder``.
public struct ConsoleResponder: WebResponder {
    /// The paths it answers.
    public static let paths: Set<String> = ["/", "/console", "/console/"]
    /// The page's content type.
    public static let contentType = "text/html; charset=utf-8"
    /// What the page may load: only itself and the API on the same origin.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// A console.
    public init() {}

    public func respond(to request: WebRequest) async -> WebResponse? {
        guard Self.paths.contains(request.path) else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = WebResponse.error(status: 405, "\(request.method) is not allowed on \(request.path); use GET")
            response.headers["allow"] = "GET, HEAD"
            return response
        }
        let headers = [
            "content-type": Self.contentType,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            "content-security-policy": Self.contentSecurityPolicy,
        ]
        return WebResponse(status: 200, headers: headers, body: ConsolePage.bytes)
    }
}
