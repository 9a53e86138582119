import HeraldCore

/// `GET /healthz` and `GET /readyz` on the web port, for orchestrators and load balancers (docs/console.md,
/// "Health").
///
/// `/healthz` answers `200 {"status":"alive"}` whenever the process answers HTTP at all. `/readyz` answers
/// `200 {"status":"ready"}` when every ``ReadinessCondition`` holds, else `503 {"status":"not-ready","waiting":[…]}`
/// naming those that do not, in the order given. Neither needs the API token: they say nothing about what is stored.
struct HealthEndpoints: Sendable {
    /// Where liveness is answered.
    static let livenessPath = "/healthz"
    /// Where readiness is answered.
    static let readinessPath = "/readyz"

    private static let alive = WebResponse.json(Array(#"{"status":"alive"}"#.utf8))
    private static let ready = WebResponse.json(Array(#"{"status":"ready"}"#.utf8))

    let conditions: [ReadinessCondition]

    /// Endpoints whose `/readyz` checks `conditions`.
    init(conditions: [ReadinessCondition]) {
        self.conditions = conditions
    }

    /// Adds both routes.
    func addRoutes(to routes: inout WebRoutes) {
        routes.get(Self.livenessPath, operationID: "getLiveness") { _ in Self.alive }
        routes.get(Self.readinessPath, operationID: "getReadiness") { [self] _ in readiness }
    }

    /// The answer of `/readyz` now.
    var readiness: WebResponse {
        let waiting = conditions.filter { !$0.isMet() }
        guard !waiting.isEmpty else { return Self.ready }
        var writer = JSONTextWriter(capacity: 64)
        writer.beginObject()
        writer.member("status", "not-ready")
        writer.key("waiting")
        writer.beginArray()
        for condition in waiting { writer.string(condition.name) }
        writer.endArray()
        writer.endObject()
        return .json(status: 503, writer.bytes)
    }
}
