import HeraldCore
import HeraldStore
import Logging
import Prometheus
import ServiceLifecycle

/// Deletes finished notifications (`delivered`, `expired`, `replaced`, `discarded`) and their traces by two rules
/// (docs/delivery.md, "Retention"): once they are older than the retention time, and, oldest first, while the store
/// is over its disk budget (``SQLiteStore/budget``; SQLite only). Then returns the freed pages to the file system.
///
/// A notification still waiting for its device is never deleted, by either rule. Each pass deletes in short
/// transactions of at most ``Configuration/batchSize`` notifications, so the gateway's group commits go on in
/// between.
public struct RetentionService: Service {
    /// How long and how often.
    public struct Configuration: Sendable {
        /// How long a finished notification stays inspectable, counted from its acceptance; `nil`: no age rule
        /// (the budget's still applies).
        public var retention: Duration?
        /// The time between passes of the age rule.
        public var interval: Duration = .seconds(60)
        /// The time between looks at the store's size (the budget's rule).
        public var budgetInterval: Duration = .seconds(1)
        /// The share of the budget in use above which the budget's rule prunes, and the share it prunes down to.
        public var budgetHighWater = 0.9
        /// See ``budgetHighWater``.
        public var budgetLowWater = 0.8
        /// Notifications looked at per transaction.
        public var batchSize = 500
        /// Free pages returned to the file system per transaction.
        public var vacuumStepPages = 2048

        /// Creates a configuration.
        public init(retention: Duration?) {
            self.retention = retention
        }
    }

    let store: any NotificationStore
    /// The store as SQLite's file, which has the disk budget and free pages to return; `nil` on PostgreSQL, which
    /// manages its own space (docs/postgresql.md).
    let file: SQLiteStore?
    let configuration: Configuration
    let clock: any WallClock
    let metrics: RetentionMetrics
    let logger: Logger

    /// Creates the service; `registry` gets `herald_notifications_pruned_total` and the `herald_store_*` series.
    public init(
        store: any NotificationStore,
        configuration: Configuration,
        clock: any WallClock,
        registry: PrometheusCollectorRegistry,
        logger: Logger
    ) {
        self.store = store
        self.file = store as? SQLiteStore
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = RetentionMetrics(registry: registry)
        metrics.budgetBytes.set(file?.budget?.bytes ?? 0)
    }

    /// Runs both rules now, then the age rule every ``Configuration/interval`` and the budget's every
    /// ``Configuration/budgetInterval``, until graceful shutdown.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            if configuration.retention != nil {
                group.addTask {
                    await runPeriodically(every: configuration.interval) {
                        await pass("Retention pass failed") { try await prune() }
                    }
                }
            }
            group.addTask {
                await runPeriodically(every: configuration.budgetInterval) {
                    await pass("Store budget pass failed") { try await pruneToBudget() }
                }
            }
        }
    }

    private func pass(_ failure: String, _ body: () async throws -> Int) async {
        do {
            _ = try await body()
        } catch {
            logger.warning("\(failure)", metadata: ["store.error": "\(error)"])
        }
    }

    /// One pass of the age rule: deletes every finished notification accepted before now minus the retention
    /// time, then returns free pages; how many notifications it deleted (0 without an age rule).
    @discardableResult
    public func prune() async throws -> Int {
        guard let retention = configuration.retention?.components else { return 0 }
        let retentionMilliseconds = retention.seconds * 1000 + retention.attoseconds / 1_000_000_000_000_000
        let cutoff = clock.nowMilliseconds() - retentionMilliseconds
        let deleted = try await pruneFinished(acceptedBefore: cutoff, rule: .retention) { false }
        if deleted > 0 {
            logger.info("Pruned finished notifications", metadata: ["store.pruned": "\(deleted)", "store.rule": "retention"])
            try await returnFreePages()
        }
        return deleted
    }

    /// Deletes finished notifications accepted before `cutoff`, oldest first, in batches, until the scan is done
    /// or `isEnough()` after a batch; how many.
    func pruneFinished(acceptedBefore cutoff: Int64, rule: RetentionMetrics.Rule, isEnough: () async throws -> Bool) async throws -> Int {
        var after: Int64 = 0
        var deleted = 0
        while !Task.isShuttingDownGracefully {
            let batch = try await store.prune(acceptedBefore: cutoff, after: after, limit: configuration.batchSize)
            deleted += batch.deleted
            metrics.recordPruned(batch, rule: rule)
            if batch.isComplete { break }
            after = batch.lastSequence
            if batch.deleted > 0, try await isEnough() { break }
            await Task.yield()
        }
        return deleted
    }
}
