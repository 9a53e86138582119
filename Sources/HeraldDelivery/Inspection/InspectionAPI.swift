import HeraldCore
import HeraldStore

/// The JSON inspection API on the web port (docs/inspection-api.json): devices and their tokens,
/// notifications and their delivery traces. Read-only.
///
/// It answers every request under `/api/v1/` — unknown paths get `404`, other methods `405`, bad
/// parameters `400`, all with `{"error":"…"}` — and leaves every other path to the next ``WebResponder``.
public struct InspectionAPI: WebResponder {
    /// The prefix of every route.
    public static let prefix = "/api/v1/"

    /// The routes' paths as the OpenAPI document writes them, e.g. `/api/v1/devices/{id}`; all are `GET`.
    public static var paths: [String] { routes.map(\.path) }

    let store: any NotificationStore
    let engine: DeliveryEngine
    let screens: ConsoleHub?

    /// An API reading `store`, with devices' `online` from the engine (a device with an open device-link session) and
    /// their `screenAt` from `screens` (the console's hub; `null` for every device without one).
    public init(store: any NotificationStore, engine: DeliveryEngine, screens: ConsoleHub? = nil) {
        self.store = store
        self.engine = engine
        self.screens = screens
    }

    /// When the device's newest screen arrived, if the console's hub has one.
    func screenAt(_ deviceID: String) -> Int64? {
        screens?.screen(deviceID: deviceID)?.updatedAtMilliseconds
    }

    public func respond(to request: WebRequest) async -> WebResponse? {
        guard request.path.hasPrefix(Self.prefix) else { return nil }
        let segments = request.pathSegments
        for route in Self.routes {
            guard let parameters = route.match(segments) else { continue }
            guard request.method == "GET" || request.method == "HEAD" else {
                var response = WebResponse.error(status: 405, "\(request.method) is not allowed on \(request.path); use GET")
                response.headers["allow"] = "GET, HEAD"
                return response
            }
            do {
                return try await route.handler(self, parameters, request)
            } catch let error as InspectionError {
                return .error(status: error.status, error.message)
            } catch {
                return .error(status: 500, "the store failed: \(error)")
            }
        }
        return .error(status: 404, "no resource at \(request.path)")
    }
}

/// The paths of the web port's JSON APIs, e.g. `/api/v1/devices/{id}`.
enum RoutePattern {
    /// The captured `{name}` segments when `segments` fit the pattern.
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

/// A refusal with its HTTP status, thrown by route handlers.
struct InspectionError: Error {
    var status: Int
    var message: String

    static func notFound(_ message: String) -> InspectionError { InspectionError(status: 404, message: message) }
    static func badRequest(_ message: String) -> InspectionError { InspectionError(status: 400, message: message) }
}

extension InspectionAPI {
    /// One `GET` route: a path pattern whose `{name}` segments are captured.
    struct Route: Sendable {
        let path: String
        let handler: @Sendable (InspectionAPI, [String: String], WebRequest) async throws -> WebResponse

        /// The captured parameters when `segments` fit the pattern.
        func match(_ segments: [String]) -> [String: String]? {
            RoutePattern.match(path, segments)
        }
    }

    static let routes: [Route] = [
        Route(path: "/api/v1/devices") { api, _, _ in try await api.listDevices() },
        Route(path: "/api/v1/devices/{id}") { api, parameters, _ in try await api.device(id: parameters["id"] ?? "") },
        Route(path: "/api/v1/devices/{id}/notifications") { api, parameters, request in
            try await api.deviceNotifications(id: parameters["id"] ?? "", request: request)
        },
        Route(path: "/api/v1/notifications") { api, _, request in try await api.listNotifications(request: request) },
        Route(path: "/api/v1/notifications/{apnsID}") { api, parameters, _ in
            try await api.notification(apnsID: parameters["apnsID"] ?? "")
        },
        Route(path: "/api/v1/notifications/{apnsID}/trace") { api, parameters, _ in
            try await api.trace(apnsID: parameters["apnsID"] ?? "")
        },
    ]
}
