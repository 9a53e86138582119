import HTTPTypes
import Hummingbird
import Logging
import Prometheus

/// The web port's one router: Hummingbird's router with the web port's middleware — request logging, metrics, the
/// JSON error shape, the access policy — in front of every route of ``WebRoutes``.
public struct WebRouter: Sendable {
    /// The responder the server runs.
    let responder: RouterResponder<WebRequestContext>
    /// The routes it serves.
    public let routes: WebRoutes
    private let logger: Logger

    /// A router for `routes`.
    ///
    /// - Parameters:
    ///   - configuration: The access policy and the request body limit.
    ///   - metrics: Where request counts and durations are recorded (``WebMetricsMiddleware``).
    public init(routes: WebRoutes, configuration: WebConfiguration, metrics: PrometheusCollectorRegistry, logger: Logger) {
        let router = Router(context: WebRequestContext.self, options: [.autoGenerateHeadEndpoints])
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: WebMetricsMiddleware(registry: metrics))
        router.add(middleware: WebErrorMiddleware(allowed: AllowedMethods(routes)))
        router.add(middleware: WebAccessMiddleware(policy: configuration.access, maximumBodySize: configuration.maximumRequestBodySize))
        let maximumBodySize = configuration.maximumRequestBodySize
        for route in routes.routes {
            router.on(RouterPath(route.path), method: route.method) { request, context in
                var request = request
                let body = try await request.collectBody(upTo: maximumBodySize)
                var webRequest = WebRequest(request, body: Array(buffer: body))
                for (name, value) in context.parameters {
                    webRequest.parameters[String(name)] = WebRequest.percentDecoded(value, plusIsSpace: false)
                }
                return try await route.handler(webRequest).hummingbirdResponse
            }
        }
        self.responder = router.buildResponder()
        self.routes = routes
        self.logger = logger
    }

    /// Answers `request` in-process, through the middleware and the routes, as the server would.
    public func respond(to request: WebRequest) async -> WebResponse {
        var head = HTTPRequest(method: HTTPRequest.Method(request.method) ?? .get, scheme: nil, authority: nil, path: request.target)
        for (name, value) in request.headers {
            if name.lowercased() == "host" {
                head.authority = value
            } else if let fieldName = HTTPField.Name(name) {
                head.headerFields.append(HTTPField(name: fieldName, value: value))
            }
        }
        var body = ByteBuffer()
        body.writeBytes(request.body)
        do {
            let response = try await responder.respond(
                to: Request(head: head, body: RequestBody(buffer: body)),
                context: WebRequestContext(logger: logger)
            )
            return try await WebResponse(response)
        } catch {
            return WebError(status: 500, message: "\(error)").response
        }
    }
}
