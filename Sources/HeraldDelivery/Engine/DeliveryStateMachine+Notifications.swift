import HeraldCore
import HeraldStore

extension DeliveryStateMachine {
    /// A notification was committed by the gateway: send it, hold it for a burst, store it, or expire it.
    ///
    /// `sequence` is its store sequence; every change for it names it so. `deviceFault` is a fault rule's device-side
    /// effect (docs/faults.md): `deviceOffline` closes the sessions of the device holding the token first, so the
    /// notification is stored; `ackDelayMs` and `extensionTimeout` go with it to every send.
    mutating func accepted(_ notification: AcceptedNotification, sequence: Int64? = nil, deviceFault: DeviceFault? = nil, now: Int64) -> [Action] {
        var actions: [Action] = []
        let id = notification.id
        // Accepted while the gateway's registry cache had not yet seen the token's unregistration (rule 14).
        if !unregisteredTokens.isEmpty, unregisteredTokens.contains(notification.token) {
            actions.append(Self.change(id, sequence, .discarded, .discarded, now, ["reason": .string("token-unregistered")]))
            return actions
        }
        // A cluster node may have taken this very row from the store (a sweep or hand-off read it after the commit and
        // before the gateway's word came): it is held already, not a reused `apns-id`.
        if clusterMode, let sequence, holds(id.key, sequence: sequence) { return actions }
        // A provider reused an `apns-id`: the store already replaced the row and traced it.
        if case .outstanding = entries[id.key]?.status {
            // Why: an `ack` names only the `apns-id`, so the newer one waits until the older's ack (or its session's
            // end) says which one the device has; one sent now would be delivered by the older's ack.
            successors[id.key] = (notification, sequence)
            actions.append(Self.change(id, sequence, .stored, nil, now, ["reason": .string("apns-id-outstanding")]))
            return actions
        }
        // Not on the device's wire: nothing will acknowledge the older one, forget it.
        remove(id.key)
        if let offline = deviceFault?.offlineMilliseconds {
            let window = OfflineWindow(ruleID: deviceFault?.ruleID ?? "", untilMilliseconds: now + offline)
            disconnectDevice(holding: notification.token, window, now: now, into: &actions)
        }
        let owner = owners[notification.token]
        // A cluster node keeps only what its devices take: the shared store keeps the rest (and traced it `stored`),
        // for the node the device connects to.
        if clusterMode, owner == nil { return actions }
        let deadline = expiryDeadline(of: notification)
        // Why: `0` means "no storage and a single attempt" (spec §A.2, §A.10).
        if deadline == nil, owner == nil {
            actions.append(Self.change(id, sequence, .expired, .expired, now, ["reason": .string("expiration-zero-offline")]))
            return actions
        }
        if let deadline, deadline <= now {
            actions.append(Self.change(id, sequence, .expired, .expired, now, ["reason": .string("expiration-past")]))
            return actions
        }
        if let collapseID = notification.collapseID {
            // Why: "APNs coalesces requests whose value for that key is the same" (spec §A.10).
            for key in queues[notification.token] ?? [] where entries[key]?.notification.collapseID == collapseID {
                let detail = TraceDetail.object(["reason": .string("collapse-id"), "by": .string(id.text)])
                finish(key, .replaced, state: .replaced, now: now, detail: detail, into: &actions)
            }
        }
        let key = insert(notification, sequence: sequence, deadline: deadline, fault: deviceFault)
        if let owner {
            let window = policy.lowPriorityBurstWindow.wholeMilliseconds
            if notification.priority >= .immediate || deadline == nil || window <= 0 {
                send(key, on: owner, now: now, into: &actions)
            } else {
                // Why: priority 5 and 1 "might get grouped and delivered in bursts" (spec §A.10).
                hold(key, on: owner, now: now)
            }
            // A collapsed notification's successor (rule 13) became pending above.
            sendPromotedSuccessors(now: now, into: &actions)
            return actions
        }
        trackDeadline(key)
        let fault = deviceFault?.offlineMilliseconds == nil ? nil : deviceFault?.ruleID
        actions.append(
            Self.change(
                id,
                sequence,
                .stored,
                nil,
                now,
                ["reason": .string("device-offline"), "expiresAt": deadline.map { .int($0) }, "fault": fault.map { .string($0) }]
            )
        )
        limitOfflineStorage(notification.token, newest: id, now: now, into: &actions)
        return actions
    }

    /// Keeps at most `policy.offlineSlotsPerApp` notifications waiting for an offline token; the oldest go.
    private mutating func limitOfflineStorage(_ token: DeviceToken, newest: NotificationID, now: Int64, into actions: inout [Action]) {
        // Why: "APNs stores only one notification per bundle ID … In most cases, the latest" (spec §A.10).
        // Counted, then finished oldest first, without collecting the waiting keys: this runs for every notification
        // stored for an offline device. A queue no longer than the slots cannot hold too many pending ones: without that
        // check, `--offline-slots N` made N pushes to one offline token cost N²/2 entry reads (10,000 took 24 s of CPU).
        let slots = max(1, policy.offlineSlotsPerApp)
        guard let queue = queues[token], queue.count > slots else { return }
        var excess = -slots
        for key in queue where entries[key]?.status == .pending { excess += 1 }
        guard excess > 0 else { return }
        let detail = TraceDetail.object(["reason": .string("offline-storage-limit"), "by": .string(newest.text)])
        for key in queue where excess > 0 && entries[key]?.status == .pending {
            finish(key, .replaced, state: .replaced, now: now, detail: detail, into: &actions)
            excess -= 1
        }
    }

    /// The device acknowledged a notification on a session: it is delivered.
    ///
    /// An acknowledgement of a notification never sent on the session is refused with `unknown-notification`;
    /// one of a notification sent there that was replaced, discarded or expired meanwhile is traced only.
    mutating func acknowledged(_ id: NotificationID, session sessionID: DeviceSessionID, now: Int64) -> [Action] {
        guard let session = sessions[sessionID]?.session else { return [] }
        let key = id.key
        var actions: [Action] = []
        if let entry = entries[key], entry.sentOn.contains(sessionID) {
            if let delay = entry.fault?.acknowledgementDelayMilliseconds {
                // A fault rule's `ackDelayMs`: the ack counts later (``tick(now:)``), if the session is still open then;
                // meanwhile the notification stays `sent`. A repeated ack changes nothing.
                if entry.heldAcknowledgement == nil {
                    entries[key]?.heldAcknowledgement = HeldAcknowledgement(session: sessionID, receivedAt: now, countsAt: now + delay)
                    heldAcknowledgements.insert(key)
                }
                return actions
            }
            completeAcknowledgement(key, session: session, now: now, into: &actions)
        } else if let sequence = sessions[sessionID]?.retired.removeValue(forKey: key) {
            let detail = TraceDetail.object(["session": .string(sessionID.description), "device": .string(session.deviceID), "late": .bool(true)])
            actions.append(
                .record(DeliveryChange(notificationID: id, sequence: sequence, event: .acknowledged, atMilliseconds: now, detailJSON: detail))
            )
        } else {
            let message = "no notification \(id) is waiting for an acknowledgement on this connection"
            actions.append(.refuse(session, id, code: "unknown-notification", message: message))
        }
        return actions
    }

    /// The notification is delivered: its `acknowledged` change, the latency, and the successor that waited for it.
    private mutating func completeAcknowledgement(
        _ key: String,
        session: any DeviceSession,
        held: HeldAcknowledgement? = nil,
        now: Int64,
        into actions: inout [Action]
    ) {
        guard let entry = entries[key] else { return }
        let detail = TraceDetail.object([
            "attempt": .int(Int64(entry.attempts)), "session": .string(session.id.description), "device": .string(session.deviceID),
            "node": nodeID.map { .string($0) },
            "fault": held.map { _ in TraceDetail.Value.string(entry.fault?.ruleID ?? "") },
            "receivedAt": held.map { TraceDetail.Value.int($0.receivedAt) }, "heldMs": held.map { TraceDetail.Value.int(now - $0.receivedAt) },
        ])
        finish(key, .acknowledged, state: .delivered, now: now, detail: detail, into: &actions)
        actions.append(.delivered(latencyMilliseconds: now - entry.notification.acceptedAtMilliseconds))
        // A newer notification with this `apns-id` waited for this ack (rule 13): it goes out now.
        sendPromotedSuccessors(now: now, into: &actions)
    }

    /// Acknowledgements held by a fault rule's `ackDelayMs` whose time has come count now, oldest first.
    private mutating func countHeldAcknowledgements(now: Int64, into actions: inout [Action]) {
        guard !heldAcknowledgements.isEmpty else { return }
        var due: [(countsAt: Int64, order: UInt64, key: String)] = []
        for key in heldAcknowledgements {
            guard let entry = entries[key], let held = entry.heldAcknowledgement else {
                heldAcknowledgements.remove(key)
                continue
            }
            if held.countsAt <= now { due.append((held.countsAt, entry.order, key)) }
        }
        for (_, _, key) in due.sorted(by: { ($0.countsAt, $0.order) < ($1.countsAt, $1.order) }) {
            heldAcknowledgements.remove(key)
            guard let held = entries[key]?.heldAcknowledgement, case .outstanding(held.session) = entries[key]?.status,
                let session = sessions[held.session]?.session
            else { continue }
            completeAcknowledgement(key, session: session, held: held, now: now, into: &actions)
        }
    }

    /// The device reported what became of a notification: traced as it came, the state does not change.
    mutating func reported(_ report: DeviceReport, session sessionID: DeviceSessionID, now: Int64) -> [Action] {
        guard TraceEventKind.deviceReports.contains(report.event) else {
            guard let session = sessions[sessionID]?.session else { return [] }
            let message = "\(report.event) is not an event a device reports"
            return [.refuse(session, report.notificationID, code: "unknown-event", message: message)]
        }
        let change = DeliveryChange(notificationID: report.notificationID, event: report.event, atMilliseconds: now, detailJSON: report.detailJSON)
        return [.record(change)]
    }

    /// A token was unregistered: nothing is sent to it any more and what waited for it is `discarded`.
    mutating func tokenUnregistered(_ token: DeviceToken, now: Int64) -> [Action] {
        unregisteredTokens.insert(token)
        owners[token] = nil
        for id in sessions.keys where sessions[id]?.tokens.contains(token) == true {
            sessions[id]?.tokens.remove(token)
        }
        var actions: [Action] = []
        // One at a time: finishing one may make a successor with its `apns-id` pending (rule 13), discarded too.
        while let key = queues[token]?.first {
            finish(
                key,
                .discarded,
                state: .discarded,
                now: now,
                detail: TraceDetail.object(["reason": .string("token-unregistered")]),
                into: &actions
            )
        }
        return actions
    }

    /// Everything in memory is `discarded` with this reason (`reset`: a test starts again, docs/testing-from-any-language.md):
    /// waiting, held and sent-but-unacknowledged notifications, and those waiting behind a reused `apns-id`. A late
    /// acknowledgement of one sent is then traced, not refused, as for any notification that left memory.
    mutating func discardAll(reason: String, now: Int64) -> [Action] {
        var actions: [Action] = []
        let detail = TraceDetail.object(["reason": .string(reason)])
        // Successors first, so that finishing their elders promotes none of them.
        for (_, successor) in successors.sorted(by: { $0.key < $1.key }) {
            let change = DeliveryChange(
                notificationID: successor.notification.id,
                sequence: successor.sequence,
                event: .discarded,
                newState: .discarded,
                atMilliseconds: now,
                detailJSON: detail
            )
            actions.append(.record(change))
        }
        successors = [:]
        promotedTokens = []
        for key in entries.sorted(by: { $0.value.order < $1.value.order }).map(\.key) {
            finish(key, .discarded, state: .discarded, now: now, detail: detail, into: &actions)
        }
        for id in sessions.keys {
            sessions[id]?.held = []
            sessions[id]?.burstDueAt = nil
        }
        sessionsWithBursts = []
        deadlines = DeadlineQueue()
        return actions
    }

    /// Loads the notifications the store still holds as `stored` (at start-up): they wait, oldest first;
    /// those whose time is up are `expired`.
    mutating func restore(_ notifications: [StoredNotification], now: Int64) -> [Action] {
        var actions: [Action] = []
        var tokens: Set<DeviceToken> = []
        for stored in notifications.sorted(by: { $0.sequence < $1.sequence }) where stored.state == .stored {
            let notification = stored.notification
            // Already here: it was accepted after start-up and its event came first.
            guard entries[notification.id.key] == nil, successors[notification.id.key] == nil else { continue }
            let deadline = expiryDeadline(of: notification)
            guard let deadline, deadline > now else {
                let reason = deadline == nil ? "expiration-zero-offline" : "expired"
                actions.append(Self.change(notification.id, stored.sequence, .expired, .expired, now, ["reason": .string(reason)]))
                continue
            }
            let key = insert(notification, sequence: stored.sequence, deadline: deadline)
            trackDeadline(key)
            tokens.insert(notification.token)
        }
        deliverPending(for: tokens.sorted { $0.hex < $1.hex }, now: now, into: &actions)
        return actions
    }

    /// Time passed: held bursts that are due go out, and waiting notifications whose deadline passed expire.
    mutating func tick(now: Int64) -> [Action] {
        var actions: [Action] = []
        while let first = deadlines.first, first.deadline <= now {
            deadlines.removeFirst()
            guard let entry = entries[first.key], entry.order == first.order else { continue }
            if case .outstanding = entry.status { continue }
            expire(first.key, now: now, into: &actions)
        }
        flushDueBursts(now: now, into: &actions)
        countHeldAcknowledgements(now: now, into: &actions)
        // Stale items (sent, delivered or replaced since) are skipped lazily; rebuild when they dominate.
        if deadlines.count > 2 * pendingCount + 1024 {
            deadlines = DeadlineQueue(
                entries.values.compactMap { entry in
                    if case .outstanding = entry.status { return nil }
                    return entry.deadline.map { DeadlineQueue.Item(deadline: $0, order: entry.order, key: entry.notification.id.key) }
                }
            )
        }
        return actions
    }

    /// When a notification expires, in milliseconds: its `apns-expiration`, or the default storage time after
    /// it was accepted when it has none; `nil` for `apns-expiration: 0` (never stored).
    func expiryDeadline(of notification: AcceptedNotification) -> Int64? {
        switch notification.expiration {
        case 0:
            return nil
        case let seconds?:
            let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return overflow ? Int64.max : milliseconds
        case nil:
            // Why: without `apns-expiration` Apple stores "for 30 days or less" (spec §A.10).
            return notification.acceptedAtMilliseconds + policy.defaultStorage.wholeMilliseconds
        }
    }

    static func change(
        _ id: NotificationID,
        _ sequence: Int64?,
        _ event: TraceEventKind,
        _ state: NotificationState?,
        _ now: Int64,
        _ fields: KeyValuePairs<String, TraceDetail.Value?>
    ) -> Action {
        .record(
            DeliveryChange(
                notificationID: id,
                sequence: sequence,
                event: event,
                newState: state,
                atMilliseconds: now,
                detailJSON: TraceDetail.object(fields)
            )
        )
    }
}
