import HeraldConsole

/// The web console on the web port (docs/console.md): `GET /` and `GET /console` answer the page, `GET
/// /console/<file>` its style sheet and script modules (``ConsoleAssets``, built into the binary). The page sends
/// pushes, draws each device's screen and follows delivery traces through the JSON API under `/api/v1/`.
///
/// Every answer carries a strong `etag` and `cache-control: no-cache`: a browser revalidates each time and gets `304`
/// while the binary is the same. The CSP allows scripts and styles from the same origin only (no inline ones). Its
/// routes are `GET /`, `GET /console` (the router reads `/console/` as `/console`) and `GET /console/{file}`; an
/// unknown file gets `404`, another method `405`.
public struct ConsoleResponder: Sendable {
    /// What the page may load: only its own files and the API on the same origin; no inline script or style.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// How long a browser may reuse an answer without asking: not at all; it revalidates with `If-None-Match`.
    public static let cacheControl = "no-cache"

    /// A console.
    public init() {}

    /// Adds the routes to the web port's.
    public func addRoutes(to routes: inout WebRoutes) {
        for path in ["/", "/console"] {
            routes.get(path) { request in Self.answer(ConsoleAssets.page, to: request) }
        }
        routes.get("/console/{file}") { request in
            guard let asset = ConsoleAssets.asset(at: ConsoleAssets.assetPathPrefix + (request.parameters["file"] ?? "")) else {
                throw WebError.notFound("the console has no file at \(request.path)")
            }
            return Self.answer(asset, to: request)
        }
    }

    /// The asset, or `304` when the request's `If-None-Match` names its entity tag.
    static func answer(_ asset: ConsoleAsset, to request: WebRequest) -> WebResponse {
        var headers = [
            "etag": asset.entityTag,
            "cache-control": Self.cacheControl,
            "x-content-type-options": "nosniff",
            "content-security-policy": Self.contentSecurityPolicy,
        ]
        let ifNoneMatch = request.headers.filter { $0.name.lowercased() == "if-none-match" }.map(\.value).joined(separator: ",")
        if !ifNoneMatch.isEmpty, asset.isMatched(byIfNoneMatch: ifNoneMatch) {
            return WebResponse(status: 304, headers: headers)
        }
        headers["content-type"] = asset.contentType
        return WebResponse(status: 200, headers: headers, body: asset.bytes)
    }
}
