import HeraldCore
import HeraldGateway
import HeraldWeb

/// `/api/v1/faults` on the web port (docs/faults.md): the provider API's fault rules, set and cleared at run time.
public struct FaultsAPI: Sendable {
    let faults: FaultTable
    let clock: any WallClock

    /// The API over a fault table; scenarios start at the clock's now.
    public init(faults: FaultTable, clock: any WallClock) {
        self.faults = faults
        self.clock = clock
    }

    /// The largest body of a rule: rules are small; this bounds what one request makes the server parse.
    static let maximumRuleSize = 16 * 1024

    /// Adds its routes to the web port's, each with its operation id in docs/inspection-api.json.
    public func addRoutes(to routes: inout WebRoutes) {
        routes.post("/api/v1/faults", operationID: "addFault") { request in try add(request) }
        routes.get("/api/v1/faults", operationID: "listFaults") { [clock] _ in
            let now = clock.nowMilliseconds()
            return .json(Self.json(["faults": .array(faults.entries.map { .object($0.jsonObject(nowMilliseconds: now)) })]))
        }
        routes.on(.delete, "/api/v1/faults", operationID: "clearFaults") { _ in .json(Self.json(["removed": .int(faults.removeAll())])) }
        routes.on(.delete, "/api/v1/faults/{id}", operationID: "removeFault") { request in
            let id = request.parameters["id"] ?? ""
            guard faults.remove(id: id) else { throw WebError.notFound("no fault rule \(id)") }
            return WebResponse(status: 204)
        }
    }

    private func add(_ request: WebRequest) throws -> WebResponse {
        guard request.body.count <= Self.maximumRuleSize else {
            throw WebError(status: 413, message: "a rule is at most \(Self.maximumRuleSize) bytes")
        }
        let rule: FaultRule
        do throws(FaultRuleError) {
            rule = try FaultRule.parse(json: request.body, nowMilliseconds: clock.nowMilliseconds())
        } catch {
            throw WebError.badRequest(error.message)
        }
        let added: FaultTable.Entry
        do throws(FaultRuleError) {
            added = try faults.add(rule)
        } catch {
            // A well-formed rule the table refuses: its id is in force (docs/inspection-api.json, 409).
            throw WebError(status: 409, message: error.message)
        }
        return .json(status: 201, added.jsonObject(nowMilliseconds: clock.nowMilliseconds()).jsonBytes)
    }

    /// An object's text, its members in key order.
    private static func json(_ members: [String: JSONValue]) -> [UInt8] {
        JSONValue.object(members).jsonBytes()
    }
}
