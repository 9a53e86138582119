import Hummingbird

/// The web port's one route table: each route a method, a path, a handler and, when docs/inspection-api.json documents
/// it, its operation id. The parts of the web port (the console and its API, the inspection API, metrics, health) add
/// their routes; one router serves them (``WebRouter``), and the API's index lists the documented ones
/// (``APIIndex``). Their order does not matter.
///
/// A path captures a segment with `{name}` (Hummingbird's parameters, as ``WebRequest/parameters``). A `GET` route also
/// answers `HEAD`; another method on a path that has routes gets `405` with `allow`, and a path without routes `404`.
public struct WebRoutes: Sendable {
    /// A route's handler: a response, or a thrown ``WebError``; any other error answers `500`.
    public typealias Handler = @Sendable (WebRequest) async throws -> WebResponse

    /// One route.
    public struct Route: Sendable {
        /// The method; a `GET` route answers `HEAD` too.
        public let method: HTTPRequest.Method
        /// The path as docs/inspection-api.json writes it, e.g. `/api/v1/devices/{id}`.
        public let path: String
        /// The operation's `operationId` in docs/inspection-api.json; `nil` for a route the document does not describe
        /// (the console's pages, `/metrics`).
        public let operationID: String?
        let handler: Handler
    }

    /// The routes, in the order they were added.
    public private(set) var routes: [Route] = []

    /// No routes.
    public init() {}

    /// Adds a route; `operationID` names it in docs/inspection-api.json.
    public mutating func on(_ method: HTTPRequest.Method, _ path: String, operationID: String? = nil, use handler: @escaping Handler) {
        routes.append(Route(method: method, path: path, operationID: operationID, handler: handler))
    }

    /// Adds a `GET` route (which answers `HEAD` too).
    public mutating func get(_ path: String, operationID: String? = nil, use handler: @escaping Handler) {
        on(.get, path, operationID: operationID, use: handler)
    }

    /// Adds a `POST` route.
    public mutating func post(_ path: String, operationID: String? = nil, use handler: @escaping Handler) {
        on(.post, path, operationID: operationID, use: handler)
    }

    /// The routes docs/inspection-api.json documents: those with an operation id.
    public var operations: [Route] { routes.filter { $0.operationID != nil } }

    /// Each path's methods in the order of the routes, `GET` followed by `HEAD`: the `allow` of a `405`.
    var methodsByPath: [(path: String, methods: [String])] {
        var paths: [(path: String, methods: [String])] = []
        for route in routes {
            let index = paths.firstIndex { $0.path == route.path } ?? paths.endIndex
            if index == paths.endIndex { paths.append((route.path, [])) }
            guard !paths[index].methods.contains(route.method.rawValue) else { continue }
            paths[index].methods.append(route.method.rawValue)
            if route.method == .get { paths[index].methods.append("HEAD") }
        }
        return paths
    }
}
