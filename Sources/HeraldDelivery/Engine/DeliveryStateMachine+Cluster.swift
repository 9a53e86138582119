import HeraldCore
import HeraldStore

/// A cluster node's rules (docs/cluster.md): the machine holds only the tokens of devices connected to this node; what
/// waits for a device that is not connected here waits in the shared store, and comes back through ``adopt(_:atConnection:now:)``.
extension DeliveryStateMachine {
    /// Rows read from the shared store (a hand-off, a sweep, or what waited when the device connected) become this
    /// node's, for the tokens a session here holds; rows of other tokens stay in the store, and so do rows the machine
    /// holds already (the same sequence, or a newer one with the same `apns-id`).
    ///
    /// `atConnection`: the rows are what waited while the device was offline (read when its session claimed the tokens);
    /// the offline rules apply to them first, as one node applies them at acceptance — an expired one is `expired`, of
    /// those with the same collapse id only the newest stays, and of the rest only the newest
    /// ``DeliveryPolicy/offlineSlotsPerApp`` per token (the older `replaced`). Other rows are arrivals for an online
    /// token and are handled as a notification accepted now. Either way what stays is sent (or held for a burst) in
    /// sequence order.
    mutating func adopt(_ rows: [StoredNotification], atConnection: Bool, now: Int64) -> [Action] {
        adopt(adoptable: adoptable(rows), atConnection: atConnection, now: now)
    }

    /// ``adopt(_:atConnection:now:)`` of rows ``adoptable(_:)`` chose already (the engine counts them first).
    mutating func adopt(adoptable fresh: [StoredNotification], atConnection: Bool, now: Int64) -> [Action] {
        var actions: [Action] = []
        var fresh = fresh
        if atConnection { fresh = applyOfflineRules(fresh, now: now, into: &actions) }
        for row in fresh {
            actions += accepted(row.notification, sequence: row.sequence, now: now)
        }
        return actions
    }

    /// The rows ``adopt(_:atConnection:now:)`` takes, in sequence order: `stored`, for a token a session here holds,
    /// and not held already.
    func adoptable(_ rows: [StoredNotification]) -> [StoredNotification] {
        rows.sorted { $0.sequence < $1.sequence }.filter { row in
            row.state == .stored && owners[row.notification.token] != nil && !holds(row.notification.id.key, sequence: row.sequence)
        }
    }

    /// Whether the machine holds this notification already: the same sequence, or a newer one with the same `apns-id`
    /// (a row, or the gateway's word for a commit a hand-off or sweep brought here first).
    func holds(_ key: String, sequence: Int64) -> Bool {
        if let entry = entries[key], (entry.sequence ?? .max) >= sequence { return true }
        if let successor = successors[key], (successor.sequence ?? .max) >= sequence { return true }
        return false
    }

    /// What one node does to notifications that wait for an offline device, applied to rows read at its connection:
    /// returns the rows that stay, oldest first.
    private func applyOfflineRules(_ rows: [StoredNotification], now: Int64, into actions: inout [Action]) -> [StoredNotification] {
        var byToken: [DeviceToken: [StoredNotification]] = [:]
        var tokenOrder: [DeviceToken] = []
        for row in rows {
            let deadline = expiryDeadline(of: row.notification)
            guard let deadline, deadline > now else {
                let reason = deadline == nil ? "expiration-zero-offline" : "expired"
                actions.append(Self.change(row.notification.id, row.sequence, .expired, .expired, now, ["reason": .string(reason)]))
                continue
            }
            if byToken[row.notification.token] == nil { tokenOrder.append(row.notification.token) }
            byToken[row.notification.token, default: []].append(row)
        }
        var kept: [StoredNotification] = []
        for token in tokenOrder {
            var waiting = byToken[token] ?? []
            // Why: "APNs coalesces requests whose value for that key is the same" (spec §A.10): the newest stays.
            var newestByCollapse: [String: NotificationID] = [:]
            for row in waiting { if let collapseID = row.notification.collapseID { newestByCollapse[collapseID] = row.notification.id } }
            waiting = waiting.filter { row in
                guard let collapseID = row.notification.collapseID, let newest = newestByCollapse[collapseID], newest != row.notification.id
                else { return true }
                let detail: KeyValuePairs<String, TraceDetail.Value?> = ["reason": .string("collapse-id"), "by": .string(newest.text)]
                actions.append(Self.change(row.notification.id, row.sequence, .replaced, .replaced, now, detail))
                return false
            }
            // Why: "APNs stores only one notification per bundle ID … In most cases, the latest" (spec §A.10).
            let slots = max(1, policy.offlineSlotsPerApp)
            if waiting.count > slots, let newest = waiting.last?.notification.id {
                for row in waiting.prefix(waiting.count - slots) {
                    let detail: KeyValuePairs<String, TraceDetail.Value?> = ["reason": .string("offline-storage-limit"), "by": .string(newest.text)]
                    actions.append(Self.change(row.notification.id, row.sequence, .replaced, .replaced, now, detail))
                }
                waiting.removeFirst(waiting.count - slots)
            }
            kept += waiting
        }
        return kept.sorted { $0.sequence < $1.sequence }
    }

    /// Forgets what waits in memory for tokens no session here holds any more: it stays `stored` in the shared store
    /// for the device's next connection, on whichever node (cluster mode only).
    mutating func dropOffline(_ tokens: [DeviceToken]) {
        let offline = Set(tokens.filter { owners[$0] == nil })
        guard !offline.isEmpty else { return }
        var dropped: Set<String> = []
        for token in offline {
            for key in queues[token] ?? [] {
                remove(key)
                dropped.insert(key)
            }
        }
        // Newer notifications waiting behind a dropped one's `apns-id` (rule 13), and those of these tokens, wait in the
        // store too: a sweep or the next connection takes them.
        if !successors.isEmpty {
            successors = successors.filter { !dropped.contains($0.key) && !offline.contains($0.value.notification.token) }
        }
    }
}
