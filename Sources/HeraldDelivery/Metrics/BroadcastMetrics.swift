import Prometheus

/// The broadcast channels' metrics (docs/metrics.md, "Broadcast channels").
public struct BroadcastMetrics: Sendable {
    let broadcasts: Counter
    let frames: Counter
    let subscriptions: Gauge

    /// Registers them in `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        broadcasts = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_broadcasts_total",
                unitName: "",
                helpText: "Broadcasts accepted (answered 200) and handed to the channel's subscribers."
            )
        )
        frames = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_broadcast_frames_sent_total",
                unitName: "",
                helpText: "Broadcast frames sent to subscribed device-link connections (one per subscriber per broadcast)."
            )
        )
        subscriptions = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_channel_subscriptions",
                unitName: "",
                helpText: "Channel subscriptions of the open device-link connections."
            )
        )
    }

    func recordBroadcast(sentTo: Int) {
        broadcasts.increment()
        frames.increment(by: Int64(sentTo))
    }

    func recordSubscriptions(_ count: Int) {
        subscriptions.set(to: Double(count))
    }
}
