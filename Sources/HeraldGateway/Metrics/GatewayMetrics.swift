import HeraldCore
import Prometheus

/// The provider API's Prometheus metrics (docs/metrics.md): accepted and rejected requests, the accept
/// latency, and the open provider connections.
///
/// Every series is created up front, one counter per known reason, so that a request only increments an
/// atomic counter (and, when accepted, records into the latency histogram): no label is built and nothing is
/// allocated per request. Hand the same registry to the delivery engine's metrics and to the `/metrics`
/// endpoint; a gateway created without metrics records into a registry of its own that nobody reads.
public struct GatewayMetrics: Sendable {
    /// The upper bounds of the accept-latency buckets: a group commit with `fsync` takes milliseconds.
    public static let acceptLatencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    static let rejectedName = "herald_notifications_rejected_total"
    static let rejectedHelp = "Provider requests answered with an error, by APNs reason and HTTP status."

    private let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let rejectedByReason: [String: Counter]
    private let acceptLatency: DurationHistogram
    let connections: Gauge

    /// Registers the gateway's metrics in `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        accepted = registry.makeCounter(
            name: "herald_notifications_accepted_total",
            help: "Provider requests answered 200: the notification is durable and handed to delivery."
        )
        var rejected: [String: Counter] = [:]
        for reason in APNSReason.all {
            rejected[reason.rawValue] = Self.makeRejectedCounter(reason, in: registry)
        }
        rejectedByReason = rejected
        acceptLatency = registry.makeDurationHistogram(
            name: "herald_accept_latency_seconds",
            buckets: Self.acceptLatencyBuckets,
            help: "From a complete provider request to its 200, including the durable commit."
        )
        connections = registry.makeGauge(name: "herald_provider_connections", help: "Open provider connections (TLS and cleartext).")
    }

    /// Counts a request answered `200`, `startedAt` being when the request was complete.
    func recordAccepted(startedAt: ContinuousClock.Instant) {
        accepted.increment()
        acceptLatency.record(startedAt.duration(to: .now))
    }

    /// Counts a request answered with an error.
    func recordRejected(_ reason: APNSReason) {
        if let counter = rejectedByReason[reason.rawValue] {
            counter.increment()
        } else {
            // A reason the table does not know: the registry returns the same series for the same labels.
            Self.makeRejectedCounter(reason, in: registry).increment()
        }
    }

    private static func makeRejectedCounter(_ reason: APNSReason, in registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(
            name: rejectedName,
            labels: [("reason", reason.rawValue), ("status", String(reason.status))],
            help: rejectedHelp
        )
    }
}
