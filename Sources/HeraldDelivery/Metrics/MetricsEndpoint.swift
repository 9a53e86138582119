import Prometheus

/// `GET /metrics` on the web port: every metric of a registry in the Prometheus text exposition format 0.0.4
/// (docs/metrics.md).
///
/// Other methods on `/metrics` get `405`; every other path is left to the next ``WebResponder``.
public struct MetricsEndpoint: WebResponder {
    /// The path it answers.
    public static let path = "/metrics"
    /// The content type of the text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry

    /// An endpoint that exposes `registry` (the one the gateway's and the engine's metrics were made in).
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    public func respond(to request: WebRequest) async -> WebResponse? {
        guard request.path == Self.path else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = WebResponse.error(status: 405, "\(request.method) is not allowed on \(Self.path); use GET")
            response.headers["allow"] = "GET, HEAD"
            return response
        }
        return WebResponse(status: 200, headers: ["content-type": Self.contentType], body: registry.emitToBuffer())
    }
}
