import Hummingbird
import Logging

/// The methods a request's path has routes for (the `allow` of a `405`), found by Hummingbird's matching: a router of
/// the route table's paths whose one answer is each path's methods.
struct AllowedMethods: Sendable {
    private let responder: RouterResponder<WebRequestContext>

    /// The methods of `routes`' paths.
    init(_ routes: WebRoutes) {
        let router = Router(context: WebRequestContext.self)
        for (path, methods) in routes.methodsByPath {
            let allow = methods.joined(separator: ", ")
            router.get(RouterPath(path)) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
        }
        responder = router.buildResponder()
    }

    /// The methods of the routes whose path matches `path` (as sent, without the query); empty when none does.
    ///
    /// It asks with a context of its own: the request's would take the path's pattern as its metrics route
    /// (``WebMetricsMiddleware`` labels a `405` `NotFound`, as Hummingbird leaves it).
    func on(_ path: String, logger: Logger) async -> [String] {
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        guard let response = try? await responder.respond(to: request, context: WebRequestContext(logger: logger)),
            response.status == .noContent, let allow = response.headers[.allow]
        else { return [] }
        return allow.split(separator: ", ").map(String.init)
    }
}
