import HeraldCore
import Hummingbird

/// The web console's JSON API on the web port (docs/inspection-api.json, tag `console`): devices' screens,
/// interactions, the send form's validation and sending, and live updates by long polling.
///
/// Its routes are under `/api/v1/` beside the ``InspectionAPI``'s; refusals are ``WebError``s.
public struct ConsoleAPI: Sendable {
    /// Time limits.
    public struct Configuration: Sendable {
        /// How long `GET /api/v1/events?after=` waits for an event before answering with none.
        public var longPollTimeout: Duration = .seconds(25)
        /// How long `POST /api/v1/devices/{id}/interactions` waits for the device's `interacted`.
        public var interactionTimeout: Duration = .seconds(5)

        /// The defaults: 25 s and 5 s.
        public init() {}
    }

    /// Every route as its method and the path the OpenAPI document writes.
    public static var operations: [(method: String, path: String)] { routes.map { ($0.method.rawValue, $0.path) } }

    let hub: ConsoleHub
    let pushes: (any ConsolePushService)?
    let configuration: Configuration

    /// An API reading `hub`; `pushes` checks and sends the send form's pushes (without it, those routes answer 503).
    public init(hub: ConsoleHub, pushes: (any ConsolePushService)?, configuration: Configuration = .init()) {
        self.hub = hub
        self.pushes = pushes
        self.configuration = configuration
    }

    /// Adds the routes to the web port's.
    public func addRoutes(to routes: inout WebRoutes) {
        for route in Self.routes {
            routes.on(route.method, route.path) { request in try await route.handler(self, request) }
        }
    }
}

extension WebError: JSONMemberError {
    /// This error with another message.
    public func with(message: String) -> WebError {
        var copy = self
        copy.message = message
        return copy
    }

    /// A reader of a request body that must be one JSON object; anything else is a `400`.
    static func bodyReader(_ body: [UInt8]) throws(WebError) -> JSONObjectReader {
        do {
            return try JSONObjectReader(body)
        } catch {
            throw .badRequest("the body must be a JSON object")
        }
    }
}

extension ConsoleAPI {
    /// One route: a method and a path pattern whose `{name}` segments are captured.
    struct Route: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let handler: @Sendable (ConsoleAPI, WebRequest) async throws(WebError) -> WebResponse
    }

    static let routes: [Route] = [
        Route(method: .get, path: "/api/v1/devices/{id}/screen") { (api, request) throws(WebError) in
            try await api.screen(deviceID: request.parameter("id"))
        },
        Route(method: .post, path: "/api/v1/devices/{id}/interactions") { (api, request) throws(WebError) in
            try await api.interact(deviceID: request.parameter("id"), body: request.body)
        },
        Route(method: .post, path: "/api/v1/console/validate") { (api, request) throws(WebError) in
            try await api.validate(body: request.body)
        },
        Route(method: .post, path: "/api/v1/console/send") { (api, request) throws(WebError) in
            try await api.send(body: request.body)
        },
        Route(method: .post, path: "/api/v1/console/channels") { (api, request) throws(WebError) in
            try await api.channelRequest("create", body: request.body)
        },
        Route(method: .post, path: "/api/v1/console/channels/delete") { (api, request) throws(WebError) in
            try await api.channelRequest("delete", body: request.body)
        },
        Route(method: .post, path: "/api/v1/console/broadcast") { (api, request) throws(WebError) in
            try await api.channelRequest("broadcast", body: request.body)
        },
        Route(method: .get, path: "/api/v1/events") { (api, request) throws(WebError) in
            try await api.events(request: request)
        },
    ]
}
