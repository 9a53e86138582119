import HeraldStore
import Prometheus

/// The delivery engine's Prometheus metrics (docs/metrics.md): what became of accepted notifications, what
/// waits, the connected devices, and the delivery latency.
///
/// The engine's event loop updates them as it processes events: counters and gauges are atomic stores, so
/// nothing here slows a send. Hand the same registry to the gateway's metrics and to the web port's `MetricsEndpoint`; an
/// engine created without metrics records into a registry of its own that nobody reads.
public struct DeliveryMetrics: Sendable {
    /// The upper bounds of the delivery-latency buckets: milliseconds for an online device, up to a day for
    /// one that comes back later.
    public static let deliveryLatencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
        .seconds(300), .seconds(1800), .seconds(3600), .seconds(6 * 3600), .seconds(24 * 3600),
    ]

    let sent: Counter
    let delivered: Counter
    let stored: Counter
    let expired: Counter
    let replaced: Counter
    let discarded: Counter
    let pending: Gauge
    let outstanding: Gauge
    let connectedDevices: Gauge
    let journalBacklog: Gauge
    let deliveryLatency: DurationHistogram
    /// A cluster node's notifications taken from the shared store, by how they came (docs/cluster.md).
    let adoptedByHandOff: Counter
    let adoptedBySweep: Counter
    let adoptedAtConnection: Counter
    /// A cluster node's route writes that failed (tried again).
    let routeFailures: Counter

    /// Registers the engine's metrics in `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        sent = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_sent_total",
                unitName: "",
                helpText: "Notifications sent on a device-link session, each attempt counted (trace event sent)."
            )
        )
        delivered = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_delivered_total",
                unitName: "",
                helpText: "Notifications acknowledged by their device: state delivered (late acknowledgements not counted)."
            )
        )
        stored = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_stored_total",
                unitName: "",
                helpText: "Notifications kept to be sent later: device offline, session closed or replaced (trace event stored)."
            )
        )
        expired = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_expired_total",
                unitName: "",
                helpText: "Notifications that reached state expired."
            )
        )
        replaced = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_replaced_total",
                unitName: "",
                helpText: "Notifications replaced by the delivery engine (collapse id, offline storage limit)."
            )
        )
        discarded = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_discarded_total",
                unitName: "",
                helpText: "Notifications discarded because their token was unregistered."
            )
        )
        pending = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_pending",
                unitName: "",
                helpText: "Notifications not yet sent: waiting for an offline device, held for a low-priority burst, or behind an "
                    + "outstanding one with the same apns-id."
            )
        )
        outstanding = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_outstanding",
                unitName: "",
                helpText: "Notifications sent and not yet acknowledged."
            )
        )
        connectedDevices = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_devices_connected",
                unitName: "",
                helpText: "Devices with at least one open device-link session."
            )
        )
        journalBacklog = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_delivery_journal_backlog",
                unitName: "",
                helpText: "Delivery changes (trace events, state changes) made but not yet written to the store."
            )
        )
        deliveryLatency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "herald_delivery_latency_seconds",
                unitName: "",
                helpText: "From acceptance (the gateway's commit) to the device's acknowledgement."
            ),
            buckets: Self.deliveryLatencyBuckets
        )
        let adopted = MetricNameDescriptor(
            metricName: "herald_cluster_adopted_total",
            unitName: "",
            helpText:
                "Notifications a cluster node took from the shared store: handed off by the node that accepted them, found by the sweep, or waiting when their device connected."
        )
        adoptedByHandOff = registry.makeCounter(descriptor: adopted, labels: [("source", "handoff")])
        adoptedBySweep = registry.makeCounter(descriptor: adopted, labels: [("source", "sweep")])
        adoptedAtConnection = registry.makeCounter(descriptor: adopted, labels: [("source", "connection")])
        routeFailures = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_cluster_route_failures_total",
                unitName: "",
                helpText: "A cluster node's writes of its devices' routes that failed (each is tried again)."
            )
        )
    }

    /// Counts notifications taken from the shared store.
    func countAdopted(_ count: Int, from source: AdoptionSource) {
        guard count > 0 else { return }
        switch source {
        case .handOff: adoptedByHandOff.increment(by: Int64(count))
        case .sweep: adoptedBySweep.increment(by: Int64(count))
        case .connection: adoptedAtConnection.increment(by: Int64(count))
        }
    }

    /// Counts a change the engine records, by its trace event.
    func count(_ change: DeliveryChange) {
        switch change.event {
        case .sent: sent.increment()
        case .acknowledged where change.newState == .delivered: delivered.increment()
        case .stored: stored.increment()
        case .expired: expired.increment()
        case .replaced: replaced.increment()
        case .discarded: discarded.increment()
        default: break
        }
    }
}
