import Foundation
import HeraldCore
import HeraldGateway
import HeraldWeb

/// `/api/v1/faults` on the web port (docs/faults.md): the provider API's fault rules, set and cleared at run time.
public struct FaultsAPI: Sendable {
    let faults: FaultTable
    let clock: any WallClock

    /// Its operations, as docs/inspection-api.json lists them.
    public static let operations: [(method: String, path: String)] = [
        ("POST", "/api/v1/faults"), ("GET", "/api/v1/faults"), ("DELETE", "/api/v1/faults"), ("DELETE", "/api/v1/faults/{id}"),
    ]

    /// The API over a fault table; scenarios start at the clock's now.
    public init(faults: FaultTable, clock: any WallClock) {
        self.faults = faults
        self.clock = clock
    }

    /// The largest body of a rule: rules are small; this bounds what one request makes the server parse.
    static let maximumRuleSize = 16 * 1024

    /// Adds its routes to the web port's.
    public func addRoutes(to routes: inout WebRoutes) {
        routes.post("/api/v1/faults") { request in try add(request) }
        routes.get("/api/v1/faults") { _ in list() }
        routes.on(.delete, "/api/v1/faults") { _ in removeAll() }
        routes.on(.delete, "/api/v1/faults/{id}") { request in try remove(request.parameters["id"] ?? "") }
    }

    private func add(_ request: WebRequest) throws -> WebResponse {
        guard request.body.count <= Self.maximumRuleSize else {
            throw WebError(status: 413, message: "a rule is at most \(Self.maximumRuleSize) bytes")
        }
        let added: FaultRule
        do throws(FaultRuleError) {
            added = try faults.add(try FaultRule.parse(json: request.body, nowMilliseconds: clock.nowMilliseconds()))
        } catch {
            throw WebError.badRequest(error.message)
        }
        // As listed, with what it has done so far (a request may already have met it).
        var object = faults.entries.first { $0.rule.id == added.id }?.jsonObject ?? added.jsonObject
        object["applied"] = object["applied"] ?? 0
        object["remaining"] = object["remaining"] ?? (added.count.map { $0 as Any } ?? NSNull())
        return .json(status: 201, try Self.json(object))
    }

    private func list() -> WebResponse {
        (try? .json(Self.json(["faults": faults.entries.map(\.jsonObject)]))) ?? WebError(status: 500, message: "unwritable rules").response
    }

    private func removeAll() -> WebResponse {
        let count = faults.removeAll()
        return (try? .json(Self.json(["removed": count]))) ?? WebError(status: 500, message: "unwritable count").response
    }

    private func remove(_ id: String) throws -> WebResponse {
        guard faults.remove(id: id) else { throw WebError.notFound("no fault rule \(id)") }
        return WebResponse(status: 204)
    }

    private static func json(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}
