import HeraldCore
import HeraldDeviceLink

/// The web console's JSON API on the web port (docs/inspection-api.json, tag `console`): devices' screens,
/// interactions, the send form's validation and sending, and live updates by long polling.
///
/// It answers only its own routes and leaves every other request to the next ``WebResponder``, so it comes
/// before ``InspectionAPI`` (which answers every other `/api/v1/` path).
public struct ConsoleAPI: WebResponder {
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
    public static var operations: [(method: String, path: String)] { routes.map { ($0.method, $0.path) } }

    let hub: ConsoleHub
    let pushes: (any ConsolePushService)?
    let configuration: Configuration

    /// An API reading `hub`; `pushes` checks and sends the send form's pushes (without it, those routes answer 503).
    public init(hub: ConsoleHub, pushes: (any ConsolePushService)?, configuration: Configuration = .init()) {
        self.hub = hub
        self.pushes = pushes
        self.configuration = configuration
    }

    public func respond(to request: WebRequest) async -> WebResponse? {
        guard request.path.hasPrefix(InspectionAPI.prefix) else { return nil }
        let segments = request.pathSegments
        let matching = Self.routes.compactMap { route in RoutePattern.match(route.path, segments).map { (route, $0) } }
        guard !matching.isEmpty else { return nil }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let (route, parameters) = matching.first(where: { $0.0.method == method }) else {
            let allowed = matching.map(\.0.method).joined(separator: ", ")
            var response = WebResponse.error(status: 405, "\(request.method) is not allowed on \(request.path); use \(allowed)")
            response.headers["allow"] = allowed
            return response
        }
        do throws(ConsoleAPIError) {
            return try await route.handler(self, parameters, request)
        } catch {
            return .error(status: error.status, error.message)
        }
    }
}

/// A refusal with its HTTP status, thrown by the console's route handlers.
struct ConsoleAPIError: Error {
    var status: Int
    var message: String

    static func badRequest(_ message: String) -> ConsoleAPIError { ConsoleAPIError(status: 400, message: message) }

    /// A reader of a request body that must be one JSON object; anything else is a `400`.
    static func bodyReader(_ body: [UInt8]) throws(ConsoleAPIError) -> JSONFrameReader {
        do {
            return try JSONFrameReader(body)
        } catch {
            throw .badRequest("the body must be a JSON object")
        }
    }
}

extension ConsoleAPI {
    /// One route: a method and a path pattern whose `{name}` segments are captured.
    struct Route: Sendable {
        let method: String
        let path: String
        let handler: @Sendable (ConsoleAPI, [String: String], WebRequest) async throws(ConsoleAPIError) -> WebResponse
    }

    static let routes: [Route] = [
        Route(method: "GET", path: "/api/v1/devices/{id}/screen") { (api, parameters, _) throws(ConsoleAPIError) in
            try api.screen(deviceID: parameters["id"] ?? "")
        },
        Route(method: "POST", path: "/api/v1/devices/{id}/interactions") { (api, parameters, request) throws(ConsoleAPIError) in
            try await api.interact(deviceID: parameters["id"] ?? "", body: request.body)
        },
        Route(method: "POST", path: "/api/v1/console/validate") { (api, _, request) throws(ConsoleAPIError) in
            try await api.validate(body: request.body)
        },
        Route(method: "POST", path: "/api/v1/console/send") { (api, _, request) throws(ConsoleAPIError) in
            try await api.send(body: request.body)
        },
        Route(method: "GET", path: "/api/v1/events") { (api, _, request) throws(ConsoleAPIError) in
            try await api.events(request: request)
        },
    ]
}
