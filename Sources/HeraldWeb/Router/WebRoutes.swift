import Hummingbird

/// The web port's routes: each a method, a path and a handler, added by the parts of the web port (the console and
/// its API, the inspection API, metrics) and served by one router (``WebRouter``). Their order does not matter.
///
/// A path captures a segment with `{name}` (``WebRequest/parameters``). A `GET` route also answers `HEAD`; another
/// method on a path that has routes gets `405` with `allow`, and a path without routes `404`.
public struct WebRoutes: Sendable {
    /// A route's handler: a response, or a thrown ``WebError``; any other error answers `500`.
    public typealias Handler = @Sendable (WebRequest) async throws -> WebResponse

    struct Route: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let handler: Handler
    }

    private(set) var routes: [Route] = []

    /// No routes.
    public init() {}

    /// Adds a route.
    public mutating func on(_ method: HTTPRequest.Method, _ path: String, use handler: @escaping Handler) {
        routes.append(Route(method: method, path: path, handler: handler))
    }

    /// Adds a `GET` route (which answers `HEAD` too).
    public mutating func get(_ path: String, use handler: @escaping Handler) {
        on(.get, path, use: handler)
    }

    /// Adds a `POST` route.
    public mutating func post(_ path: String, use handler: @escaping Handler) {
        on(.post, path, use: handler)
    }

    /// The methods allowed on `path` (a request's path), `GET` followed by `HEAD`; empty when no route has that path.
    func allowedMethods(on path: String) -> [String] {
        let segments = WebRequest(method: "GET", target: path).pathSegments
        var methods: [String] = []
        for route in routes where RoutePattern.match(route.path, segments) != nil && !methods.contains(route.method.rawValue) {
            methods.append(route.method.rawValue)
            if route.method == .get { methods.append("HEAD") }
        }
        return methods
    }
}

/// A route's path pattern, e.g. `/api/v1/devices/{id}`.
enum RoutePattern {
    /// The captured `{name}` segments when `segments` (percent-decoded) fit the pattern.
    static func match(_ pattern: String, _ segments: [String]) -> [String: String]? {
        let expected = pattern.split(separator: "/").map(String.init)
        guard expected.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(expected, segments) {
            if expected.hasPrefix("{"), expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = actual
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
