import HeraldCore
import HeraldWeb

/// `POST /api/v1/reset` on the web port (docs/testing-from-any-language.md): a test starts again without a restart.
public struct ResetAPI: Sendable {
    let reset: @Sendable (ResetOptions) async throws -> ResetResult

    /// The largest body: a few booleans.
    static let maximumBodySize = 1024

    func addRoutes(to routes: inout WebRoutes) {
        routes.post("/api/v1/reset", operationID: "reset") { request in
            let options = try Self.options(request.body)
            let result: ResetResult
            do {
                result = try await reset(options)
            } catch {
                throw WebError(status: 500, message: "the store failed: \(error)")
            }
            var writer = JSONTextWriter(capacity: 64)
            writer.beginObject()
            writer.member("deleted", result.deleted)
            writer.member("discarded", result.discarded)
            writer.member("faultsRemoved", result.faultsRemoved)
            writer.endObject()
            return .json(writer.bytes)
        }
    }

    /// The options of a body: none (or `{}`) for both; `{"notifications": false}` or `{"faults": false}` to keep one.
    static func options(_ body: [UInt8]) throws(WebError) -> ResetOptions {
        guard body.count <= maximumBodySize else { throw WebError(status: 413, message: "a reset's body is at most \(maximumBodySize) bytes") }
        var options = ResetOptions()
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) else { return options }
        guard let object = (try? JSONParser.parse(body))?.objectValue else {
            throw .badRequest("a reset's body must be a JSON object, e.g. {\"faults\": false}")
        }
        for (name, value) in object.members {
            guard let flag = value.boolValue else { throw .badRequest("\(name) must be true or false") }
            switch name {
            case "notifications": options.notifications = flag
            case "faults": options.faults = flag
            case "devices":
                guard !flag else {
                    throw .badRequest("devices are kept by a reset in this version: remove a device's tokens with herald tokens unregister")
                }
            default: throw .badRequest("unknown field '\(name)': a reset takes notifications, faults and devices")
            }
        }
        return options
    }
}
