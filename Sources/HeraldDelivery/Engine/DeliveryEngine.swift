import HeraldCore
import HeraldStore
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization

/// Store-and-forward delivery: takes accepted notifications and sends them to connected devices with
/// APNs semantics (docs/delivery.md).
///
/// Inputs are plain methods callable from any thread, including a SwiftNIO event loop: they never block
/// and start no task; they queue an event that ``run()`` processes in order with a pure state machine
/// (`DeliveryStateMachine`), taking everything queued at once (`EngineInbox`). Changes are written through the store
/// in batches (group commit); sending never waits for a write.
///
/// Start-up: ``restore()`` before the gateway accepts, then ``run()`` in the `ServiceGroup`, listed before the
/// gateway and the device-link server so that it stops after them (a group shuts services down in reverse
/// order); on graceful shutdown it processes the events already queued, writes every change, and returns.
public final class DeliveryEngine: Service, Sendable {
    /// Settings.
    public struct Configuration: Sendable {
        /// The store-and-forward rules.
        public var policy = DeliveryPolicy()
        /// How often expirations and held low-priority notifications are checked.
        public var tickInterval: Duration = .milliseconds(100)
        /// The most changes written in one transaction.
        ///
        /// Why 10 000: the journal and the gateway's group commit take turns on the store's one writer. A
        /// delivered notification makes two changes (`sent`, `acknowledged`; more with device reports), and a
        /// group commit takes up to 2000 notifications, so a smaller batch lets the journal fall behind the
        /// gateway under sustained overload and its queue grow without bound (bench/delivery/results-2026-11-23.md).
        public var maximumJournalBatch = 10_000
        /// The shortest time between two journal writes, unless a quarter of ``maximumJournalBatch`` queues up, an idle waiter waits, or the
        /// engine stops (``DeliveryJournal``): at a moderate rate one transaction then carries the changes of many
        /// events. `.zero` writes whenever the writer is free.
        public var journalInterval: Duration = .milliseconds(10)
        /// How long the journal waits before writing a failed batch again; doubled after each failure up to
        /// ``maximumJournalRetryDelay``.
        public var journalRetryDelay: Duration = .milliseconds(100)
        /// The longest wait between two attempts at a failed write.
        public var maximumJournalRetryDelay: Duration = .seconds(5)
        /// How long a notification's `sent` trace event may wait for its next change (usually its `acknowledged`), so
        /// that both reach the store in one write (``HeldSentChanges``; docs/delivery.md, "When a trace is written").
        /// Released at the first tick after this; `.zero` writes each `sent` at once.
        public var sentTraceHold: Duration = .milliseconds(200)

        /// A cluster node (docs/cluster.md): how often it reads what waits in the shared store for its devices (the
        /// sweep that finds what a hand-off missed).
        public var sweepInterval: Duration = .milliseconds(250)
        /// A cluster node: how often it renews its lease.
        public var heartbeatInterval: Duration = .seconds(1)
        /// A cluster node: how often it looks for notifications whose time is up while no node holds their device.
        public var expiryInterval: Duration = .seconds(1)
        /// A cluster node: how long it waits before trying a failed route write again.
        public var routeRetryDelay: Duration = .seconds(1)

        /// The default configuration.
        public init() {}
    }

    enum Event: Sendable {
        case accepted(AcceptedNotification, sequence: Int64?, deviceFault: DeviceFault?)
        case sessionOpened(any DeviceSession, tokens: [DeviceToken])
        case tokenRegistered(DeviceToken, session: DeviceSessionID)
        case tokenUnregistered(DeviceToken, atMilliseconds: Int64)
        case sessionClosed(DeviceSessionID)
        case acknowledged(NotificationID, session: DeviceSessionID)
        case reported(DeviceReport, session: DeviceSessionID)
        case restored([StoredNotification])
        /// Discard everything in memory with this reason; `counted` is told how many notifications that was.
        case discardAll(reason: String, counted: @Sendable (Int) -> Void)
        case tick
        /// Resume idle waiter `id` once everything queued before it is processed (and, if asked, written).
        case barrier(UInt64, waitForJournal: Bool)
        /// A cluster node read these rows from the shared store (docs/cluster.md).
        case adopted([StoredNotification], source: AdoptionSource)
        /// A cluster node wrote the routes of these tokens and read what waited for them (docs/cluster.md).
        case claimed([DeviceToken], rows: [StoredNotification], atConnection: Bool)
        /// A cluster node's route write failed: write the routes again of those tokens still held (`claim`) or no
        /// longer held (`release`) here.
        case retryRoutes([DeviceToken], claim: Bool)
    }

    /// What the event loop keeps between events (on ``run()``'s task).
    struct Core {
        var machine: DeliveryStateMachine
        /// A cluster node's finished sequences whose change may not be in the store yet (docs/cluster.md).
        var finished = RecentlyFinished()
        /// `sent` changes waiting for their notification's next change.
        var heldSents: HeldSentChanges
        /// A cluster node's tokens whose claim (route write, then the read of what waited) has not come back: rows a
        /// sweep or hand-off brings for them wait for it, so what waited while the device was offline goes through the
        /// offline rules at once, never as arrivals (a sweep that ran between the route write and the claim's answer
        /// sent an older notification the offline storage limit replaces).
        var pendingClaims: [DeviceToken: Int] = [:]
    }

    let configuration: Configuration
    let store: any DeliveryStore
    let clock: any WallClock
    let tickClock: any Clock<Duration>
    let logger: Logger
    let metrics: DeliveryMetrics
    /// Where inputs queue events for the event loop.
    let inbox = EngineInbox<Event>()
    /// The changes on their way to the store.
    let journal: DeliveryJournal
    /// What the inspection API and metrics read, published by the event loop.
    let snapshot = Mutex(Snapshot())
    let idleWaiters = Mutex(IdleWaiters())
    let hasRun = Atomic<Bool>(false)
    /// The tokens fault rules keep offline: written when such a notification is accepted, read by the device link
    /// when a device says hello (``offlineWindow(for:)``).
    let offlineWindows = Mutex(OfflineWindows())
    let onTraceRecorded: (@Sendable (NotificationID, TraceEventKind) -> Void)?
    /// The shared store of a cluster node, `nil` on a single node (docs/cluster.md).
    let cluster: (any ClusterStore)?
    /// Route writes, in the order the event loop decided them, for the cluster worker.
    let clusterOps: AsyncStream<ClusterOperation>
    let clusterOpsInput: AsyncStream<ClusterOperation>.Continuation

    /// Creates an engine; nothing is read or sent until ``restore()`` and ``run()``.
    ///
    /// - Parameters:
    ///   - clock: the time every delivery rule reads (expiration, bursts) and every change is stamped with.
    ///   - tickClock: the clock the engine sleeps on between ticks and between attempts at a failed write.
    ///   - metrics: where deliveries, waiting notifications, connected devices and the delivery latency are
    ///     counted (docs/metrics.md); by default a registry of the engine's own that nothing reads.
    ///   - cluster: the shared store of a cluster node (`herald serve --cluster`, docs/cluster.md): the engine then holds
    ///     only what its connected devices take, writes their routes, and takes what other nodes hand off; ``restore()``
    ///     is not called.
    ///   - onTraceRecorded: told of each trace event once it is in the store (and of `accepted` when the engine
    ///     hears of a committed notification), from the engine's tasks; must return quickly (the web console's
    ///     live updates).
    public init(
        store: any DeliveryStore,
        configuration: Configuration = .init(),
        clock: any WallClock = SystemWallClock(),
        tickClock: any Clock<Duration> = ContinuousClock(),
        metrics: DeliveryMetrics = DeliveryMetrics(registry: PrometheusCollectorRegistry()),
        onTraceRecorded: (@Sendable (NotificationID, TraceEventKind) -> Void)? = nil,
        cluster: (any ClusterStore)? = nil,
        logger: Logger
    ) {
        journal = DeliveryJournal(maximumBatch: configuration.maximumJournalBatch, minimumInterval: configuration.journalInterval)
        self.onTraceRecorded = onTraceRecorded
        self.cluster = cluster
        (clusterOps, clusterOpsInput) = AsyncStream.makeStream(of: ClusterOperation.self)
        self.store = store
        self.metrics = metrics
        self.configuration = configuration
        self.clock = clock
        self.tickClock = tickClock
        self.logger = logger
    }

    /// A notification was committed: deliver it (call after the store said it is durable).
    ///
    /// `sequence` is its store sequence (``StoredNotification/sequence``): the engine's changes name the
    /// notification by it, so that those of an older notification whose `apns-id` a provider reused never land on
    /// the newer one. `nil` (unknown) names it by `apns-id` only. `deviceFault` is what a fault rule does to its
    /// delivery (docs/faults.md, "Device-side effects"): with `deviceOffline`, the token is held offline from now on,
    /// before this returns, so that a device saying hello afterwards is refused.
    public func accepted(_ notification: AcceptedNotification, sequence: Int64? = nil, deviceFault: DeviceFault? = nil) {
        if let offline = deviceFault?.offlineMilliseconds {
            let now = clock.nowMilliseconds()
            let window = OfflineWindow(ruleID: deviceFault?.ruleID ?? "", untilMilliseconds: now + offline)
            offlineWindows.withLock { $0.hold(notification.token, window, now: now) }
        }
        enqueue(.accepted(notification, sequence: sequence, deviceFault: deviceFault))
    }

    /// The fault rule's window that keeps a device holding these tokens offline now, if any: the device link refuses
    /// the device's hello until it ends (docs/faults.md).
    public func offlineWindow(for tokens: [DeviceToken]) -> OfflineWindow? {
        let now = clock.nowMilliseconds()
        return offlineWindows.withLock { $0.window(for: tokens, now: now) }
    }

    /// A device connected and authenticated; `tokens` are its active tokens.
    public func sessionOpened(_ session: any DeviceSession, tokens: [DeviceToken]) {
        enqueue(.sessionOpened(session, tokens: tokens))
    }

    /// An app on a connected device registered (or re-registered) and has this active token.
    public func tokenRegistered(_ token: DeviceToken, session: DeviceSessionID) {
        enqueue(.tokenRegistered(token, session: session))
    }

    /// A token was unregistered: what waits for it is discarded.
    public func tokenUnregistered(_ token: DeviceToken, atMilliseconds: Int64) {
        enqueue(.tokenUnregistered(token, atMilliseconds: atMilliseconds))
    }

    /// A device's connection closed: what it did not acknowledge is kept for its next connection.
    public func sessionClosed(_ session: DeviceSessionID) {
        enqueue(.sessionClosed(session))
    }

    /// The device acknowledged a notification sent on this session.
    public func acknowledged(_ id: NotificationID, session: DeviceSessionID) {
        enqueue(.acknowledged(id, session: session))
    }

    /// The device reported what became of a notification.
    public func reported(_ report: DeviceReport, session: DeviceSessionID) {
        enqueue(.reported(report, session: session))
    }

    /// Discards every notification the engine holds (waiting, held, sent and not acknowledged), recording
    /// `discarded` with `reason`, and returns how many once those changes are written: afterwards every notification
    /// the engine had heard of before the call is in a final state. Devices a fault rule keeps offline may connect
    /// again. For `POST /api/v1/reset`.
    public func discardAll(reason: String) async -> Int {
        let count = Mutex(0)
        enqueue(.discardAll(reason: reason, counted: { value in count.withLock { $0 = value } }))
        await waitUntilIdle()
        return count.withLock { $0 }
    }

    /// Loads the notifications the store still holds as `stored`, so that they are sent when their devices
    /// connect; those whose time is up become `expired`.
    ///
    /// Call once at start-up, before the gateway accepts (the loaded notifications then come before every
    /// new one); ``run()`` may start before or after. Fails when the store cannot be read.
    public func restore() async throws {
        let pending = try await store.pendingNotifications()
        logger.info("delivery engine restoring", metadata: ["delivery.restored": "\(pending.count)"])
        enqueue(.restored(pending))
    }
}
