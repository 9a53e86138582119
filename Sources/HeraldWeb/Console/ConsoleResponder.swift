/// The web console on the web port (docs/console.md): `GET /` and `GET /console` answer one self-contained HTML page
/// (inline CSS and JavaScript, no external resources) that sends pushes, draws each device's screen and follows
/// delivery traces through the JSON API under `/api/v1/`.
///
/// Its routes are `GET /` and `GET /console` (the router reads `/console/` as `/console`).
public struct ConsoleResponder: Sendable {
    /// The paths it answers.
    public static let paths = ["/", "/console"]
    /// The page's content type.
    public static let contentType = "text/html; charset=utf-8"
    /// What the page may load: only itself and the API on the same origin.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// A console.
    public init() {}

    /// Adds the routes to the web port's.
    public func addRoutes(to routes: inout WebRoutes) {
        for path in Self.paths {
            routes.get(path) { _ in page }
        }
    }

    /// The page's response.
    var page: WebResponse {
        let headers = [
            "content-type": Self.contentType,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            "content-security-policy": Self.contentSecurityPolicy,
        ]
        return WebResponse(status: 200, headers: headers, body: ConsolePage.bytes)
    }
}
