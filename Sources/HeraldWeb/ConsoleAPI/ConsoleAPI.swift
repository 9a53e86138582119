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

    let hub: ConsoleHub
    let pushes: (any ConsolePushService)?
    let configuration: Configuration

    /// An API reading `hub`; `pushes` checks and sends the send form's pushes (without it, those routes answer 503).
    public init(hub: ConsoleHub, pushes: (any ConsolePushService)?, configuration: Configuration = .init()) {
        self.hub = hub
        self.pushes = pushes
        self.configuration = configuration
    }

    /// Adds the routes to the web port's, each with its operation id in docs/inspection-api.json.
    public func addRoutes(to routes: inout WebRoutes) {
        routes.get("/api/v1/devices/{id}/screen", operationID: "getDeviceScreen") { request in
            try await screen(deviceID: request.parameter("id"))
        }
        routes.post("/api/v1/devices/{id}/interactions", operationID: "interactWithDevice") { request in
            try await interact(deviceID: request.parameter("id"), body: request.body)
        }
        routes.post("/api/v1/console/validate", operationID: "validatePush") { request in try await validate(body: request.body) }
        routes.post("/api/v1/console/send", operationID: "sendPush") { request in try await send(body: request.body) }
        routes.post("/api/v1/console/channels", operationID: "createChannel") { request in
            try await channelRequest("create", body: request.body)
        }
        routes.post("/api/v1/console/channels/delete", operationID: "deleteChannel") { request in
            try await channelRequest("delete", body: request.body)
        }
        routes.post("/api/v1/console/broadcast", operationID: "broadcast") { request in
            try await channelRequest("broadcast", body: request.body)
        }
        routes.get("/api/v1/events", operationID: "getEvents") { request in try await events(request: request) }
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
