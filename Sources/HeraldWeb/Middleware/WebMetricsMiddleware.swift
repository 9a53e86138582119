import Hummingbird
import Prometheus

/// Counts the web port's HTTP requests and times them, per route and status, in the process's Prometheus registry
/// (`herald_web_requests_total`, `herald_web_request_duration_seconds`; docs/metrics.md).
///
/// The route is the pattern that matched (`/api/v1/devices/{id}`), or `NotFound`, so the labels stay few.
struct WebMetricsMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    /// The upper bounds of the duration buckets: a page or a JSON answer takes milliseconds, a long poll up to 25 s.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(500),
        .seconds(1), .seconds(5), .seconds(30),
    ]

    let registry: PrometheusCollectorRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(context: context, status: response.status.code, since: start)
            return response
        } catch let error as any HTTPResponseError {
            record(context: context, status: error.status.code, since: start)
            throw error
        } catch {
            record(context: context, status: 500, since: start)
            throw error
        }
    }

    private func record(context: Context, status: Int, since start: ContinuousClock.Instant) {
        let route = context.coreContext.endpointPath.value ?? "NotFound"
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_web_requests_total",
                unitName: "",
                helpText: "HTTP requests answered on the web port (device-link upgrades not counted), by route and status."
            ),
            labels: [("route", route), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "herald_web_request_duration_seconds",
                unitName: "",
                helpText: "How long the web port took to answer an HTTP request, by route."
            ),
            labels: [("route", route)],
            buckets: Self.durationBuckets
        ).record(ContinuousClock.now - start)
    }
}
