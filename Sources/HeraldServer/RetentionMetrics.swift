import HeraldStore
import Prometheus

/// The retention service's series: notifications pruned by rule and state, the store's size and its budget
/// (docs/metrics.md, "Store").
struct RetentionMetrics: Sendable {
    /// Why a notification was pruned: its age (`retention`) or the disk budget (`budget`).
    enum Rule: String, CaseIterable, Sendable {
        case retention
        case budget
    }

    /// The final states a pruned notification can be in.
    static let prunableStates: [NotificationState] = [.delivered, .expired, .replaced, .discarded]

    private let pruned: [Rule: [NotificationState: Counter]]
    let sizeBytes: Gauge
    let usedBytes: Gauge
    let budgetBytes: Gauge

    init(registry: PrometheusCollectorRegistry) {
        var pruned: [Rule: [NotificationState: Counter]] = [:]
        for rule in Rule.allCases {
            for state in Self.prunableStates {
                pruned[rule, default: [:]][state] = registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        metricName: "herald_notifications_pruned_total",
                        unitName: "",
                        helpText: "Finished notifications deleted with their traces, by rule (retention, budget) and state."
                    ),
                    labels: [("rule", rule.rawValue), ("state", state.rawValue)]
                )
            }
        }
        self.pruned = pruned
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help))
        }
        sizeBytes = gauge("herald_store_size_bytes", "The database's size in bytes: every page, free ones included.")
        usedBytes = gauge("herald_store_used_bytes", "The bytes of the database's pages in use (the budget counts these).")
        budgetBytes = gauge("herald_store_budget_bytes", "The store's disk budget in bytes (--max-store-mb); 0: none.")
    }

    /// Counts a batch's deletions under `rule`.
    func recordPruned(_ batch: PruneBatch, rule: Rule) {
        for (state, count) in batch.deletedByState where count > 0 {
            pruned[rule]?[state]?.increment(by: Int64(count))
        }
    }

    /// Sets the size gauges.
    func recordSize(_ size: StoreSize) {
        sizeBytes.set(size.bytes)
        usedBytes.set(size.usedBytes)
    }
}
