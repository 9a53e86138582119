import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import HeraldDelivery

@Suite("Delivery engine journal: group commit, retries, shutdown", .tier(.inProcess))
struct DeliveryJournalTests {
    @Test("Many events while a write is in flight go out in few writes of at most maximumJournalBatch, in order")
    func groupCommit() async throws {
        let store = InMemoryDeliveryStore()
        await store.holdNextWrite()
        let notifications = (0..<100).map { _ in AcceptedNotification.fixture(token: DeviceToken.random()) }
        var configuration = DeliveryEngine.Configuration.forTests
        configuration.maximumJournalBatch = 40
        try await withRunningEngine(store: store, configuration: configuration) { engine in
            engine.accepted(notifications[0])
            await store.waitUntilWriteIsHeld()
            for notification in notifications.dropFirst() { engine.accepted(notification) }
            await engine.waitUntilProcessed()
            #expect(engine.counts.pending == 100)
            await store.releaseWrite()
            await engine.waitUntilIdle()
            let batches = await store.batches
            #expect(batches.map(\.count) == [1, 40, 40, 19])
            #expect(batches.flatMap { $0 }.map(\.notificationID) == notifications.map(\.id))
            #expect(await store.attempts == 4)
        }
    }

    @Test("herald_delivery_journal_backlog counts the changes not yet written, and falls to 0 once written")
    func backlogMetric() async throws {
        let store = InMemoryDeliveryStore()
        await store.holdNextWrite()
        let registry = PrometheusCollectorRegistry()
        let engine = DeliveryEngine(
            store: store,
            configuration: .forTests,
            clock: ManualWallClock(milliseconds: t0),
            metrics: DeliveryMetrics(registry: registry),
            logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [engine], logger: Logger(label: "test.group"))
        func backlog() -> Double? {
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return PrometheusText(String(decoding: buffer, as: UTF8.self))["herald_delivery_journal_backlog"]
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            engine.accepted(AcceptedNotification.fixture(token: DeviceToken.random()))
            await store.waitUntilWriteIsHeld()
            for _ in 0..<5 { engine.accepted(AcceptedNotification.fixture(token: DeviceToken.random())) }
            await engine.waitUntilProcessed()
            // One change in the held write, five queued behind it.
            #expect(backlog() == 6)
            await store.releaseWrite()
            await engine.waitUntilIdle()
            #expect(backlog() == 0)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("The default journal batch covers what one full group commit of the gateway makes to journal")
    func defaultBatchKeepsUpWithGroupCommit() {
        // The journal and the gateway take turns on the store's writer: per turn, the journal must be able to write
        // the `sent` and `acknowledged` changes (and a report) of every notification one group commit accepted, or
        // under overload its queue grows for as long as the overload lasts.
        let groupCommit = SQLiteStore.Configuration(dataDirectory: "/nonexistent").maximumBatchSize
        #expect(DeliveryEngine.Configuration().maximumJournalBatch >= 3 * groupCommit)
    }

    @Test("A failed write is retried until it succeeds; nothing is lost or duplicated")
    func failedWriteIsRetried() async throws {
        let store = InMemoryDeliveryStore()
        await store.failNext(3)
        let token = DeviceToken.random()
        try await withRunningEngine(store: store) { engine in
            let session = RecordingSession()
            engine.sessionOpened(session, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            engine.accepted(notification)
            await engine.waitUntilIdle()
            // Sending did not wait for the failing write.
            #expect(session.deliveredIDs == [notification.id])
            #expect(await store.attempts == 4)
            #expect(await store.changes.kinds == [.sent])
        }
    }

    @Test("Graceful shutdown processes queued events and flushes the journal before run() returns")
    func shutdownFlushes() async throws {
        let store = InMemoryDeliveryStore()
        await store.holdNextWrite()
        let configuration = DeliveryEngine.Configuration.forTests
        let engine = DeliveryEngine(
            store: store,
            configuration: configuration,
            clock: ManualWallClock(milliseconds: t0),
            logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [engine], logger: Logger(label: "test.group"))
        let notifications = (0..<10).map { _ in AcceptedNotification.fixture(token: DeviceToken.random()) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            engine.accepted(notifications[0])
            await store.waitUntilWriteIsHeld()
            for notification in notifications.dropFirst() { engine.accepted(notification) }
            await group.triggerGracefulShutdown()
            await store.releaseWrite()
            try await tasks.waitForAll()
        }
        #expect(await store.changes.map(\.notificationID) == notifications.map(\.id))
        // After run() ended, waiting returns at once.
        await engine.waitUntilIdle()
    }

    @Test(
        "A journal that cannot write does not hold a shutdown past the group's limit: cancelled, it gives the batch up",
        .timeLimit(.minutes(1))
    )
    func failingJournalDoesNotHoldShutdown() async throws {
        let store = InMemoryDeliveryStore()
        await store.failNext(Int.max)
        var configuration = DeliveryEngine.Configuration.forTests
        configuration.journalRetryDelay = .milliseconds(20)
        configuration.maximumJournalRetryDelay = .milliseconds(20)
        let engine = DeliveryEngine(
            store: store,
            configuration: configuration,
            clock: ManualWallClock(milliseconds: t0),
            logger: Logger(label: "test")
        )
        var groupConfiguration = ServiceGroupConfiguration(services: [.init(service: engine)], logger: Logger(label: "test.group"))
        groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(300)
        let group = ServiceGroup(configuration: groupConfiguration)
        let notification = AcceptedNotification.fixture(token: DeviceToken.random())
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            engine.accepted(notification)
            try await eventually("the journal tries the write again") { await store.attempts >= 2 }
            await group.triggerGracefulShutdown()
            // Without the escalation to cancellation this waits for ever (the write keeps failing).
            do { try await tasks.waitForAll() } catch {}
        }
        #expect(await store.attempts >= 2)
        #expect(await store.changes.isEmpty)
    }

    @Test("waitUntilIdle during shutdown returns once run() has flushed the journal")
    func waitDuringShutdown() async throws {
        let store = InMemoryDeliveryStore()
        await store.holdNextWrite()
        let configuration = DeliveryEngine.Configuration.forTests
        let engine = DeliveryEngine(
            store: store,
            configuration: configuration,
            clock: ManualWallClock(milliseconds: t0),
            logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [engine], logger: Logger(label: "test.group"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            engine.accepted(AcceptedNotification.fixture(token: DeviceToken.random()))
            await store.waitUntilWriteIsHeld()
            engine.accepted(AcceptedNotification.fixture(token: DeviceToken.random()))
            await group.triggerGracefulShutdown()
            tasks.addTask {
                await engine.waitUntilIdle()
                #expect(await store.changes.count == 2)
            }
            await store.releaseWrite()
            try await tasks.waitForAll()
        }
    }

    @Test("Journal state: batches are bounded and barriers resolve when their changes are written")
    func journalState() async {
        let journal = DeliveryJournal(maximumBatch: 2)
        #expect(journal.addBarrier(1))
        let change = DeliveryChange(notificationID: .random(), event: .sent, atMilliseconds: t0)
        journal.append([change, change, change])
        #expect(!journal.addBarrier(2))
        #expect(await journal.nextBatch()?.count == 2)
        #expect(journal.didWrite(2).isEmpty)
        #expect(await journal.nextBatch()?.count == 1)
        #expect(journal.didWrite(1) == [2])
        journal.finish()
        #expect(await journal.nextBatch() == nil)
    }

    /// The time a paced journal reads in these tests; only the test moves it.
    private final class PacingClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    /// A journal paced by `interval` on a clock the test moves.
    private static func pacedJournal(maximumBatch: Int = 100, interval: Duration = .milliseconds(10)) -> (DeliveryJournal, PacingClock) {
        let clock = PacingClock()
        return (DeliveryJournal(maximumBatch: maximumBatch, minimumInterval: interval, clock: { clock.now }), clock)
    }

    /// Starts a writer's `nextBatch()` and returns once it waits in the journal.
    private static func parkedWriter(_ journal: DeliveryJournal) async -> Task<[DeliveryChange]?, Never> {
        let writer = Task { await journal.nextBatch() }
        while !journal.isWriterParked { await Task.yield() }
        return writer
    }

    private static func change(_ milliseconds: Int64) -> DeliveryChange {
        DeliveryChange(notificationID: .random(), event: .sent, atMilliseconds: milliseconds)
    }

    @Test("Paced: what queues during the interval waits for it, then goes out in one batch (the tick's poke)")
    func pacedInterval() async {
        let (journal, now) = Self.pacedJournal()
        journal.append([Self.change(1)])
        // The first batch is due at once.
        #expect(await journal.nextBatch()?.map(\.atMilliseconds) == [1])
        _ = journal.didWrite(1)
        let writer = await Self.parkedWriter(journal)
        journal.append([Self.change(2)])
        journal.append([Self.change(3)])
        now.advance(.milliseconds(9))
        journal.poke()
        #expect(journal.isWriterParked)
        now.advance(.milliseconds(1))
        journal.poke()
        #expect(await writer.value?.map(\.atMilliseconds) == [2, 3])
    }

    @Test("Paced: an append after the interval hands the queue over at once")
    func pacedAppend() async {
        let (journal, now) = Self.pacedJournal()
        journal.append([Self.change(1)])
        _ = await journal.nextBatch()
        let writer = await Self.parkedWriter(journal)
        journal.append([Self.change(2)])
        #expect(journal.isWriterParked)
        now.advance(.milliseconds(10))
        journal.append([Self.change(3)])
        #expect(await writer.value?.map(\.atMilliseconds) == [2, 3])
    }

    @Test("Paced: an idle waiter, a quarter of the largest batch, and finish() each make the queue due at once")
    func pacedEarly() async {
        let (journal, _) = Self.pacedJournal(maximumBatch: 8)
        journal.append([Self.change(1)])
        _ = await journal.nextBatch()
        _ = journal.didWrite(1)
        // An idle waiter.
        var writer = await Self.parkedWriter(journal)
        journal.append([Self.change(2)])
        #expect(journal.isWriterParked)
        #expect(!journal.addBarrier(1))
        #expect(await writer.value?.map(\.atMilliseconds) == [2])
        #expect(journal.didWrite(1) == [1])
        // Two changes: a quarter of 8.
        writer = await Self.parkedWriter(journal)
        journal.append([Self.change(3)])
        #expect(journal.isWriterParked)
        journal.append([Self.change(4)])
        #expect(await writer.value?.map(\.atMilliseconds) == [3, 4])
        _ = journal.didWrite(2)
        // Finish: the queue first, then the end.
        writer = await Self.parkedWriter(journal)
        journal.append([Self.change(5)])
        journal.finish()
        #expect(await writer.value?.map(\.atMilliseconds) == [5])
        #expect(await journal.nextBatch() == nil)
    }

    @Test("Not paced (interval zero): every append hands the parked writer its batch")
    func unpaced() async {
        let journal = DeliveryJournal(maximumBatch: 100)
        journal.append([Self.change(1)])
        _ = await journal.nextBatch()
        let writer = await Self.parkedWriter(journal)
        journal.append([Self.change(2)])
        #expect(await writer.value?.map(\.atMilliseconds) == [2])
    }
}
