import Prometheus

/// `GET /metrics` on the web port: every metric of a registry in the Prometheus text exposition format 0.0.4
/// (docs/metrics.md).
///
public struct MetricsEndpoint: Sendable {
    /// The path it answers.
    public static let path = "/metrics"
    /// The content type of the text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry

    /// An endpoint that exposes `registry` (the one the gateway's and the engine's metrics were made in).
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Adds the route to the web port's.
    public func addRoutes(to routes: inout WebRoutes) {
        routes.get(Self.path) { _ in metrics }
    }

    /// The registry's metrics now.
    var metrics: WebResponse {
        WebResponse(status: 200, headers: ["content-type": Self.contentType], body: registry.emitToBuffer())
    }
}
