import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

extension DeliveryEngine {
    /// Processes events in order, ticks, and writes changes, until graceful shutdown.
    ///
    /// On graceful shutdown the events queued so far are still processed (later inputs are dropped) and every
    /// change is written before it returns. A failed write is logged and tried again (with backoff) until it
    /// succeeds or the task is cancelled. Call it once.
    public func run() async throws {
        precondition(!hasRun.exchange(true, ordering: .relaxed), "DeliveryEngine.run() called twice")
        logger.info("delivery engine started")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.writeJournal(self.journal) }
            await withTaskGroup(of: Void.self) { ticker in
                ticker.addTask { await self.tickUntilCancelled() }
                if let cluster { runCluster(cluster, in: &ticker) }
                await withGracefulShutdownHandler {
                    var core = Core(
                        machine: DeliveryStateMachine(policy: self.configuration.policy, nodeID: self.cluster?.nodeID),
                        heldSents: HeldSentChanges(holdMilliseconds: self.configuration.sentTraceHold.wholeMilliseconds)
                    )
                    while let batch = await self.inbox.next() { self.process(batch, &core) }
                    // What the engine held back is written before the journal finishes.
                    self.releaseHeldSents(&core) { $0.releaseAll(into: &$1) }
                } onGracefulShutdown: {
                    // Ends the event loop once it has taken every event queued so far.
                    self.inbox.finish()
                }
                ticker.cancelAll()
            }
            if let cluster {
                clusterOpsInput.finish()
                await leaveCluster(cluster)
            }
            journal.finish()
            await group.waitForAll()
        }
        // A cancelled run may leave waiters whose barrier never came up: they must not wait forever.
        let waiters = idleWaiters.withLock { $0.end() }
        for waiter in waiters { waiter.resume() }
        logger.info("delivery engine stopped")
    }

    /// Queues an event for the event loop; `false` once it no longer takes any (graceful shutdown began).
    @discardableResult
    func enqueue(_ event: Event) -> Bool {
        inbox.push(event)
    }

    /// The event loop: the only place the state machine is used. One batch at a time, in order; the counts are
    /// published once per batch (and before a waiter is resumed).
    private func process(_ batch: [Event], _ core: inout Core) {
        for event in batch { handle(event, &core) }
        publishCounts(core.machine)
    }

    private func publishCounts(_ machine: DeliveryStateMachine) {
        let counts = DeliveryCounts(pending: machine.unsentCount, outstanding: machine.outstandingCount)
        snapshot.withLock { $0.counts = counts }
        metrics.pending.set(to: Double(counts.pending))
        metrics.outstanding.set(to: Double(counts.outstanding))
    }

    private func handle(_ event: Event, _ core: inout Core) {
        let now = clock.nowMilliseconds()
        let actions: [DeliveryStateMachine.Action]
        switch event {
        case .accepted(let notification, let sequence, let deviceFault):
            onTraceRecorded?(notification.id, .accepted)
            // A cluster node may have taken the row from the store and finished it before the gateway's word came.
            if cluster != nil, let sequence, core.finished.contains(sequence) { return }
            actions = core.machine.accepted(notification, sequence: sequence, deviceFault: deviceFault, now: now)
            publishSessions(of: actions, core.machine)
        case .sessionOpened(let session, let tokens):
            // A device that said hello just before a fault rule took it offline (the device link refuses later ones).
            if let window = offlineWindows.withLock({ $0.window(for: tokens, now: now) }) {
                disconnect(session, window, now: now)
                return
            }
            actions = core.machine.sessionOpened(session, tokens: tokens, now: now)
            publishSessions(of: session.deviceID, core.machine)
            if cluster != nil {
                let held = tokens.filter { core.machine.owner(of: $0) == session.id }
                if !held.isEmpty { claim(held, &core) }
            }
        case .tokenRegistered(let token, let session):
            actions = core.machine.tokenRegistered(token, session: session, now: now)
            if cluster != nil, core.machine.owner(of: token) == session { claim([token], &core) }
        case .tokenUnregistered(let token, let at):
            actions = core.machine.tokenUnregistered(token, now: now)
            if cluster != nil {
                clusterOpsInput.yield(.release([token]))
                clusterOpsInput.yield(.discardUnrouted(token, atMilliseconds: at))
            }
        case .sessionClosed(let session):
            let deviceID = core.machine.deviceID(of: session)
            let tokens = core.machine.tokens(of: session)
            actions = core.machine.sessionClosed(session, now: now)
            if let deviceID { publishSessions(of: deviceID, core.machine) }
            if cluster != nil {
                let released = tokens.filter { !core.machine.isOnline($0) }
                if !released.isEmpty { clusterOpsInput.yield(.release(released)) }
            }
        case .adopted(let rows, let source):
            // Rows of a token whose claim is on its way wait for it (the next sweep finds any the claim's read missed).
            let pending = core.pendingClaims
            actions = adopt(pending.isEmpty ? rows : rows.filter { pending[$0.notification.token] == nil }, from: source, &core, now: now)
        case .claimed(let tokens, let rows, let atConnection):
            settleClaims(tokens, &core)
            actions = adopt(rows, from: atConnection ? .connection : .sweep, &core, now: now)
        case .retryRoutes(let tokens, let claim):
            if claim { settleClaims(tokens, &core) }
            let still = tokens.filter { core.machine.isOnline($0) == claim }
            if !still.isEmpty {
                if claim { self.claim(still, &core) } else { clusterOpsInput.yield(.release(still)) }
            }
            return
        case .acknowledged(let id, let session):
            actions = core.machine.acknowledged(id, session: session, now: now)
        case .reported(let report, let session):
            actions = core.machine.reported(report, session: session, now: now)
        case .restored(let notifications):
            actions = core.machine.restore(notifications, now: now)
        case .tick:
            actions = core.machine.tick(now: now)
            if cluster != nil {
                core.finished.forget(writtenThrough: journal.writtenCount, before: now - Self.finishedMemoryMilliseconds)
            }
            releaseHeldSents(&core) { $0.releaseExpired(now: now, into: &$1) }
            // A paced journal whose interval ran out while no change came.
            journal.poke()
        case .discardAll(let reason, let counted):
            actions = core.machine.discardAll(reason: reason, now: now)
            // The fault rules' offline windows end with what they held back.
            offlineWindows.withLock { $0 = OfflineWindows() }
            counted(actions.count)
        case .barrier(let id, let waitForJournal):
            // A waiter that waits for the journal finds every change of what happened before it in the store.
            if waitForJournal { releaseHeldSents(&core) { $0.releaseAll(into: &$1) } }
            // A waiter reads the counts next.
            publishCounts(core.machine)
            if !waitForJournal || journal.addBarrier(id) { resumeIdleWaiters([id]) }
            return
        }
        perform(actions, &core, now: now)
    }

    /// Asks the route writer to claim these tokens (a session here holds them) and counts the claims on their way.
    private func claim(_ tokens: [DeviceToken], _ core: inout Core) {
        for token in tokens { core.pendingClaims[token, default: 0] += 1 }
        clusterOpsInput.yield(.claim(tokens, atConnection: true))
    }

    /// A claim of these tokens came back (answered, or failed and about to be decided again).
    private func settleClaims(_ tokens: [DeviceToken], _ core: inout Core) {
        for token in tokens {
            guard let count = core.pendingClaims[token] else { continue }
            core.pendingClaims[token] = count > 1 ? count - 1 : nil
        }
    }

    /// The machine's actions for rows read from the shared store, less those finished here already.
    private func adopt(_ rows: [StoredNotification], from source: AdoptionSource, _ core: inout Core, now: Int64) -> [DeliveryStateMachine.Action] {
        let finished = core.finished
        let fresh = core.machine.adoptable(rows.filter { !finished.contains($0.sequence) })
        metrics.countAdopted(fresh.count, from: source)
        return core.machine.adopt(adoptable: fresh, atConnection: source == .connection, now: now)
    }

    /// Hands the `sent` changes that `release` takes from the held ones to the journal.
    private func releaseHeldSents(_ core: inout Core, _ release: (inout HeldSentChanges, inout [DeliveryChange]) -> Void) {
        guard core.heldSents.count > 0 else { return }
        var changes: [DeliveryChange] = []
        release(&core.heldSents, &changes)
        if !changes.isEmpty { metrics.journalBacklog.set(to: Double(journal.append(changes))) }
    }

    /// Sends, refuses and records what the machine said (a `sent` change may be held for its notification's next
    /// change, ``HeldSentChanges``); a cluster node also remembers the sequences it finished until their changes are
    /// written.
    private func perform(_ actions: [DeliveryStateMachine.Action], _ core: inout Core, now: Int64) {
        var changes: [DeliveryChange] = []
        for action in actions {
            switch action {
            case .send(let session, let delivery):
                session.deliver(delivery)
            case .refuse(let session, let id, let code, let message):
                session.refuse(id, code: code, message: message)
            case .record(let change):
                metrics.count(change)
                core.heldSents.route(change, now: now, into: &changes)
            case .delivered(let latencyMilliseconds):
                metrics.deliveryLatency.record(.milliseconds(max(0, latencyMilliseconds)))
            case .disconnect(let session, let window):
                disconnect(session, window, now: clock.nowMilliseconds())
            }
        }
        guard !changes.isEmpty else { return }
        metrics.journalBacklog.set(to: Double(journal.append(changes)))
        if cluster != nil {
            let mark = journal.appendedCount
            for change in changes where change.newState != nil {
                if let sequence = change.sequence { core.finished.insert(sequence, journalMark: mark, finishedAt: now) }
            }
        }
    }

    /// Closes a session a fault rule took offline, with an `error` frame saying until when.
    private func disconnect(_ session: any DeviceSession, _ window: OfflineWindow, now: Int64) {
        logger.debug(
            "fault rule took a device offline",
            metadata: ["delivery.device": "\(session.deviceID)", "delivery.session": "\(session.id)", "delivery.fault": "\(window.ruleID)"]
        )
        session.disconnect(
            code: OfflineWindow.errorCode,
            message: window.message(now: now),
            retryAfterMilliseconds: window.retryAfterMilliseconds(now: now)
        )
    }

    /// Publishes the session counts of the devices a fault rule took offline among these actions.
    private func publishSessions(of actions: [DeliveryStateMachine.Action], _ machine: DeliveryStateMachine) {
        for action in actions {
            if case .disconnect(let session, _) = action { publishSessions(of: session.deviceID, machine) }
        }
    }

    private func publishSessions(of deviceID: String, _ machine: DeliveryStateMachine) {
        let count = machine.sessionCount(deviceID: deviceID)
        let devices = snapshot.withLock { snapshot in
            snapshot.sessionsByDevice[deviceID] = count == 0 ? nil : count
            return snapshot.sessionsByDevice.count
        }
        metrics.connectedDevices.set(to: Double(devices))
    }

    /// Queues a tick every `tickInterval` until cancelled.
    private func tickUntilCancelled() async {
        while true {
            do {
                try await tickClock.sleep(for: configuration.tickInterval)
            } catch {
                return
            }
            guard enqueue(.tick) else { return }
        }
    }

    /// The journal's writer: one batch at a time until the journal is finished and drained.
    private func writeJournal(_ journal: DeliveryJournal) async {
        while let batch = await journal.nextBatch() {
            await write(batch)
            if let onTraceRecorded {
                for change in batch { onTraceRecorded(change.notificationID, change.event) }
            }
            resumeIdleWaiters(journal.didWrite(batch.count))
            metrics.journalBacklog.set(to: Double(journal.backlog))
        }
    }

    /// Writes one batch, trying again after a failure until it succeeds or the task is cancelled.
    private func write(_ batch: [DeliveryChange]) async {
        var delay = configuration.journalRetryDelay
        var failures = 0
        while true {
            do {
                try await store.record(batch)
                if failures > 0 {
                    logger.info("delivery journal write succeeded after failures", metadata: ["delivery.journal.failures": "\(failures)"])
                }
                return
            } catch {
                failures += 1
                logger.info(
                    "delivery journal write failed; trying again",
                    metadata: [
                        "delivery.journal.batch": "\(batch.count)", "delivery.journal.failures": "\(failures)", "delivery.error": "\(error)",
                    ]
                )
            }
            do {
                try await tickClock.sleep(for: delay)
            } catch {
                logger.info("delivery journal gave up a batch: cancelled", metadata: ["delivery.journal.batch": "\(batch.count)"])
                return
            }
            delay = min(delay * 2, configuration.maximumJournalRetryDelay)
        }
    }
}
