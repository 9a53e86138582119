import HeraldCore
import HeraldStore

/// The pure logic of store-and-forward delivery (docs/delivery.md): which notification goes to which
/// session, when, and what each step records.
///
/// A value type in the SwiftNIO style: each input takes the current time in milliseconds and returns the
/// actions the caller must perform (send a frame, refuse an acknowledgement, record a change). It does no
/// I/O and reads no clock, so every rule is tested with explicit times.
///
/// Memory holds only notifications that still wait for something (pending, held for a burst, or sent and
/// not yet acknowledged); a notification leaves memory when it reaches a final state.
struct DeliveryStateMachine {
    /// What the owner must do after an input, in order.
    enum Action {
        /// Send a `notification` frame on the session.
        case send(any DeviceSession, NotificationDelivery)
        /// Send an `error` frame about a notification on the session.
        case refuse(any DeviceSession, NotificationID, code: String, message: String)
        /// Write this change through the journal.
        case record(DeliveryChange)
        /// A notification was acknowledged this long after it was accepted (the delivery-latency metric).
        case delivered(latencyMilliseconds: Int64)
        /// A fault rule took the session's device offline: send it an `error` frame and close it (the machine already
        /// counts it as closed).
        case disconnect(any DeviceSession, OfflineWindow)
    }

    /// Where a notification in memory is.
    enum Status: Hashable {
        /// Waiting for a session that holds its token.
        case pending
        /// A low-priority notification waiting on this session for its burst.
        case held(DeviceSessionID)
        /// Sent on this session and not yet acknowledged.
        case outstanding(DeviceSessionID)
    }

    /// A notification in memory.
    ///
    /// The notification itself sits in a shared immutable box: the machine reads entries by value
    /// (`entries[key]?.status`), and a copy of the box is one retain where a copy of the notification's fields
    /// is one per string and array.
    struct Entry {
        private final class Box: Sendable {
            let notification: AcceptedNotification
            init(_ notification: AcceptedNotification) { self.notification = notification }
        }

        private let box: Box
        var notification: AcceptedNotification { box.notification }
        /// Its store sequence, which every change names it by; `nil` when the caller did not know it.
        let sequence: Int64?
        /// Arrival order: smaller is older (restored notifications keep the store's order).
        let order: UInt64
        /// When it expires, in milliseconds; `nil` for `apns-expiration: 0`, which is never stored.
        let deadline: Int64?
        /// How often it was sent.
        var attempts = 0
        var status = Status.pending
        /// Open sessions it was sent on: an acknowledgement from any of them counts.
        var sentOn: [DeviceSessionID] = []
        /// A fault rule's device-side effect on it (docs/faults.md); in memory only.
        let fault: DeviceFault?
        /// An acknowledgement a fault rule's `ackDelayMs` holds: the session it came on, when it came, and when it
        /// counts.
        var heldAcknowledgement: HeldAcknowledgement?

        init(notification: AcceptedNotification, sequence: Int64?, order: UInt64, deadline: Int64?, fault: DeviceFault? = nil) {
            self.box = Box(notification)
            self.sequence = sequence
            self.order = order
            self.deadline = deadline
            self.fault = fault
        }
    }

    /// An acknowledgement that counts only later (a fault rule's `ackDelayMs`).
    struct HeldAcknowledgement: Hashable {
        let session: DeviceSessionID
        let receivedAt: Int64
        let countsAt: Int64
    }

    /// An open device-link session.
    struct Session {
        let session: any DeviceSession
        /// The tokens the session holds (it may not own each: a newer session of the device may).
        var tokens: Set<DeviceToken>
        /// Keys of low-priority notifications held for the next burst, oldest first.
        var held: [String] = []
        /// When the held notifications go out.
        var burstDueAt: Int64?
        /// Keys of notifications sent here that reached a final state meanwhile (replaced, discarded,
        /// expired), with their store sequences: a late acknowledgement of one is traced, not refused.
        var retired: [String: Int64?] = [:]
    }

    let policy: DeliveryPolicy
    /// Every notification in memory, by the key form of its `apns-id`.
    var entries: [String: Entry] = [:]
    /// Newer notifications whose `apns-id` a provider reused while the older one was outstanding, by that key:
    /// each waits until the older is acknowledged or comes back from its session (docs/delivery.md, rule 13).
    var successors: [String: (notification: AcceptedNotification, sequence: Int64?)] = [:]
    /// Tokens of successors made pending since the last ``sendPromotedSuccessors(now:into:)``.
    var promotedTokens: Set<DeviceToken> = []
    /// Keys of the notifications in memory for each token, oldest first.
    var queues: [DeviceToken: [String]] = [:]
    var sessions: [DeviceSessionID: Session] = [:]
    /// Open sessions by device id, oldest first.
    var deviceSessions: [String: [DeviceSessionID]] = [:]
    /// The session each online token is delivered on: the newest open session holding it.
    var owners: [DeviceToken: DeviceSessionID] = [:]
    /// Tokens known to be unregistered: a notification for one that the gateway accepted before its cache saw the
    /// unregistration is discarded on arrival (docs/delivery.md, rule 14). Tokens are never registered again.
    var unregisteredTokens: Set<DeviceToken> = []
    /// Sessions with held notifications.
    var sessionsWithBursts: Set<DeviceSessionID> = []
    /// Keys of notifications whose acknowledgement a fault rule holds (``Entry/heldAcknowledgement``).
    var heldAcknowledgements: Set<String> = []
    /// Deadlines of pending and held notifications (stale items are skipped when they come up).
    var deadlines = DeadlineQueue()
    var nextOrder: UInt64 = 0
    /// Notifications not yet sent (pending or held).
    private(set) var pendingCount = 0
    /// Notifications sent and not yet acknowledged.
    private(set) var outstandingCount = 0

    /// Notifications not yet sent: pending, held, and those waiting behind an outstanding one with their `apns-id`
    /// (rule 13). What `herald_notifications_pending` reports.
    var unsentCount: Int { pendingCount + successors.count }

    /// The node's id when the machine is a cluster node's (docs/cluster.md): a notification for a token no session
    /// here holds is left to the shared store (it is not kept in memory, and the store traced it), a closed session's
    /// tokens are forgotten, and `sent` and `acknowledged` name the node (session ids are a node's own).
    let nodeID: String?
    var clusterMode: Bool { nodeID != nil }

    init(policy: DeliveryPolicy, nodeID: String? = nil) {
        self.policy = policy
        self.nodeID = nodeID
    }

    /// Whether a session holds the token (the token is "online").
    func isOnline(_ token: DeviceToken) -> Bool { owners[token] != nil }

    /// The session a token is delivered on, if any.
    func owner(of token: DeviceToken) -> DeviceSessionID? { owners[token] }

    /// The tokens an open session holds.
    func tokens(of id: DeviceSessionID) -> [DeviceToken] { sessions[id]?.tokens.sorted { $0.hex < $1.hex } ?? [] }

    /// The number of open sessions of a device.
    func sessionCount(deviceID: String) -> Int { deviceSessions[deviceID]?.count ?? 0 }

    /// The device id of an open session.
    func deviceID(of id: DeviceSessionID) -> String? { sessions[id]?.session.deviceID }

    // MARK: - Bookkeeping shared by the inputs

    /// Adds a notification as pending (its deadline is tracked only once it stays pending: ``trackDeadline(_:)``).
    mutating func insert(_ notification: AcceptedNotification, sequence: Int64?, deadline: Int64?, fault: DeviceFault? = nil) -> String {
        let key = notification.id.key
        nextOrder += 1
        entries[key] = Entry(notification: notification, sequence: sequence, order: nextOrder, deadline: deadline, fault: fault)
        queues[notification.token, default: []].append(key)
        pendingCount += 1
        return key
    }

    /// Removes a notification from memory, wherever it is.
    @discardableResult
    mutating func remove(_ key: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        if entry.heldAcknowledgement != nil { heldAcknowledgements.remove(key) }
        let token = entry.notification.token
        if let index = queues[token]?.firstIndex(of: key) {
            queues[token]?.remove(at: index)
            if queues[token]?.isEmpty == true { queues[token] = nil }
        }
        switch entry.status {
        case .pending:
            pendingCount -= 1
        case .held(let id):
            pendingCount -= 1
            if let index = sessions[id]?.held.firstIndex(of: key) { sessions[id]?.held.remove(at: index) }
        case .outstanding:
            outstandingCount -= 1
        }
        return entry
    }

    /// Moves a notification to a new status, keeping the counts and the deadline queue right.
    mutating func setStatus(_ key: String, _ status: Status) {
        guard let old = entries[key]?.status else { return }
        if case .outstanding = old { outstandingCount -= 1 } else { pendingCount -= 1 }
        if case .outstanding = status { outstandingCount += 1 } else { pendingCount += 1 }
        entries[key]?.status = status
        if entries[key]?.heldAcknowledgement != nil {
            // Sent again or back in storage: a held acknowledgement from the earlier send no longer counts.
            entries[key]?.heldAcknowledgement = nil
            heldAcknowledgements.remove(key)
        }
        if case .outstanding = status { return }
        trackDeadline(key)
    }

    /// Puts a waiting notification's deadline in the queue that ``tick(now:)`` reads.
    mutating func trackDeadline(_ key: String) {
        guard let entry = entries[key], let deadline = entry.deadline else { return }
        deadlines.push(DeadlineQueue.Item(deadline: deadline, order: entry.order, key: key))
    }

    /// Ends a notification's life in memory with a final change (or a trace event for `delivered`).
    mutating func finish(
        _ key: String,
        _ event: TraceEventKind,
        state: NotificationState,
        now: Int64,
        detail: String,
        into actions: inout [Action]
    ) {
        guard let entry = remove(key) else { return }
        if state != .delivered {
            for id in entry.sentOn { sessions[id]?.retired.updateValue(entry.sequence, forKey: key) }
        }
        actions.append(
            .record(
                DeliveryChange(
                    notificationID: entry.notification.id,
                    sequence: entry.sequence,
                    event: event,
                    newState: state,
                    atMilliseconds: now,
                    detailJSON: detail
                )
            )
        )
        promoteSuccessor(of: key)
    }

    /// Makes the newer notification that waited for this `apns-id` pending, once the older left memory.
    ///
    /// Not sent here: the caller sends what is pending (``deliverPending(for:now:into:)``) once the token's
    /// owner is settled.
    mutating func promoteSuccessor(of key: String) {
        guard entries[key] == nil, let successor = successors.removeValue(forKey: key) else { return }
        let promoted = insert(successor.notification, sequence: successor.sequence, deadline: expiryDeadline(of: successor.notification))
        trackDeadline(promoted)
        promotedTokens.insert(successor.notification.token)
    }

    /// Sends the successors promoted meanwhile whose device is connected.
    ///
    /// Why a set and not a call per accept or ack: promotions are rare (a reused `apns-id`), and scanning a token's
    /// queue on every accepted notification and every ack would cost the common path.
    mutating func sendPromotedSuccessors(now: Int64, into actions: inout [Action]) {
        guard !promotedTokens.isEmpty else { return }
        let tokens = Array(promotedTokens)
        promotedTokens.removeAll()
        deliverPending(for: tokens, now: now, into: &actions)
    }

    /// Sends a notification on a session (attempt + 1) and traces `sent`.
    /// Sends a notification on a session and records `sent`; `burst` says it was held for a low-priority burst, which
    /// the detail explains (`reason: low-priority-burst`, `heldMs` since acceptance), so a trace shows why it waited.
    mutating func send(_ key: String, on id: DeviceSessionID, now: Int64, burst: Bool = false, into actions: inout [Action]) {
        guard let session = sessions[id]?.session, var entry = entries[key] else { return }
        entry.attempts += 1
        entry.sentOn = entry.sentOn.filter { sessions[$0] != nil && $0 != id } + [id]
        entries[key] = entry
        setStatus(key, .outstanding(id))
        let delivery = NotificationDelivery(
            notification: entry.notification,
            attempt: entry.attempts,
            extensionTimeout: entry.fault?.extensionTimeout == true
        )
        actions.append(.send(session, delivery))
        let detail =
            burst
            ? TraceDetail.object([
                "attempt": .int(Int64(entry.attempts)), "session": .string(id.description), "device": .string(session.deviceID),
                "node": nodeID.map { .string($0) },
                "reason": .string("low-priority-burst"), "heldMs": .int(max(0, now - entry.notification.acceptedAtMilliseconds)),
            ])
            : TraceDetail.object([
                "attempt": .int(Int64(entry.attempts)), "session": .string(id.description), "device": .string(session.deviceID),
                "node": nodeID.map { .string($0) },
            ])
        actions.append(
            .record(
                DeliveryChange(notificationID: entry.notification.id, sequence: entry.sequence, event: .sent, atMilliseconds: now, detailJSON: detail)
            )
        )
    }

    /// Whether a stored notification's time is up: its deadline passed, or it is `apns-expiration: 0`.
    static func isExpired(_ entry: Entry, now: Int64) -> Bool {
        guard let deadline = entry.deadline else { return true }
        return deadline <= now
    }

    /// The `expired` change for a notification that could not be sent in time.
    mutating func expire(_ key: String, now: Int64, into actions: inout [Action]) {
        let reason = entries[key]?.deadline == nil ? "expiration-zero-offline" : "expired"
        finish(key, .expired, state: .expired, now: now, detail: TraceDetail.object(["reason": .string(reason)]), into: &actions)
    }
}
