import HeraldCore
import HeraldStore
import Logging
import Prometheus
import ServiceLifecycle

/// Deletes finished notifications (`delivered`, `expired`, `replaced`, `discarded`) and their traces once they
/// are older than the retention time, so the database stops growing (docs/delivery.md, "Retention").
///
/// A notification still waiting for its device is never deleted. Each pass deletes in short transactions of at
/// most ``Configuration/batchSize`` notifications, so the gateway's group commits go on in between.
public struct RetentionService: Service {
    /// How long and how often.
    public struct Configuration: Sendable {
        /// How long a finished notification stays inspectable, counted from its acceptance.
        public var retention: Duration
        /// The time between passes.
        public var interval: Duration = .seconds(60)
        /// Notifications looked at per transaction.
        public var batchSize = 500

        /// Creates a configuration.
        public init(retention: Duration) {
            self.retention = retention
        }
    }

    let store: SQLiteStore
    let configuration: Configuration
    let clock: any WallClock
    let pruned: Counter
    let logger: Logger

    /// Creates the service; `registry` gets `herald_notifications_pruned_total`.
    public init(
        store: SQLiteStore,
        configuration: Configuration,
        clock: any WallClock,
        registry: PrometheusCollectorRegistry,
        logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.pruned = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_pruned_total",
                unitName: "",
                helpText: "Finished notifications deleted with their traces after the retention time."
            )
        )
    }

    /// Runs a pass now and then one every ``Configuration/interval`` until graceful shutdown.
    public func run() async throws {
        await runPeriodically(every: configuration.interval) {
            do {
                try await prune()
            } catch {
                logger.warning("Retention pass failed", metadata: ["store.error": "\(error)"])
            }
        }
    }

    /// One pass: deletes every finished notification accepted before now minus the retention time; returns
    /// how many.
    @discardableResult
    public func prune() async throws -> Int {
        let retention = configuration.retention.components
        let retentionMilliseconds = retention.seconds * 1000 + retention.attoseconds / 1_000_000_000_000_000
        let cutoff = clock.nowMilliseconds() - retentionMilliseconds
        var after: Int64 = 0
        var deleted = 0
        while !Task.isShuttingDownGracefully {
            let batch = try await store.prune(acceptedBefore: cutoff, after: after, limit: configuration.batchSize)
            deleted += batch.deleted
            pruned.increment(by: Int64(batch.deleted))
            if batch.isComplete { break }
            after = batch.lastSequence
            await Task.yield()
        }
        if deleted > 0 {
            logger.info("Pruned finished notifications", metadata: ["store.pruned": "\(deleted)"])
        }
        return deleted
    }
}
