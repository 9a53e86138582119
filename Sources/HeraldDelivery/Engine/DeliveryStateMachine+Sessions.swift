import HeraldCore
import HeraldStore

extension DeliveryStateMachine {
    /// A device connected: it holds `tokens`; what waits for them is sent now, oldest first.
    mutating func sessionOpened(_ session: any DeviceSession, tokens: [DeviceToken], now: Int64) -> [Action] {
        if sessions[session.id] == nil {
            sessions[session.id] = Session(session: session, tokens: [])
            deviceSessions[session.deviceID, default: []].append(session.id)
        }
        var actions: [Action] = []
        claim(tokens, for: session.id, now: now, into: &actions)
        return actions
    }

    /// An app on a connected device registered: the session now holds the token too.
    mutating func tokenRegistered(_ token: DeviceToken, session id: DeviceSessionID, now: Int64) -> [Action] {
        guard sessions[id] != nil else { return [] }
        var actions: [Action] = []
        claim([token], for: id, now: now, into: &actions)
        return actions
    }

    /// A connection closed: what it had not acknowledged waits again (or goes to another open session of the
    /// device that holds the token); an unacknowledged `apns-expiration: 0` notification expires.
    mutating func sessionClosed(_ id: DeviceSessionID, reason: String = "session-closed", now: Int64) -> [Action] {
        guard let closed = sessions.removeValue(forKey: id) else { return [] }
        let deviceID = closed.session.deviceID
        if var others = deviceSessions[deviceID] {
            others.removeAll { $0 == id }
            deviceSessions[deviceID] = others.isEmpty ? nil : others
        }
        sessionsWithBursts.remove(id)
        var actions: [Action] = []
        var moved: [DeviceToken] = []
        for token in closed.tokens.sorted(by: { $0.hex < $1.hex }) {
            returnToStorage(token, from: id, reason: reason, now: now, into: &actions)
            guard owners[token] == id else { continue }
            owners[token] = nil
            // Why: a device may hold two sessions for a moment (a reconnect seen before the old close);
            // the token stays online on the newest other session of the device that holds it.
            let successor = deviceSessions[deviceID]?.last { sessions[$0]?.tokens.contains(token) == true }
            if let successor {
                owners[token] = successor
                moved.append(token)
            }
        }
        deliverPending(for: moved, now: now, into: &actions)
        if clusterMode { dropOffline(Array(closed.tokens)) }
        return actions
    }

    /// A fault rule's `deviceOffline`: every open session of the device holding the token is told to close and counts
    /// as closed from now on (what it had not acknowledged waits again, traced `stored` with reason
    /// `fault-device-offline`); a later acknowledgement on it is ignored, as on a closed link.
    mutating func disconnectDevice(holding token: DeviceToken, _ window: OfflineWindow, now: Int64, into actions: inout [Action]) {
        let devices = Set(sessions.values.filter { $0.tokens.contains(token) }.map(\.session.deviceID))
        for deviceID in devices.sorted() {
            for id in deviceSessions[deviceID] ?? [] {
                guard let session = sessions[id]?.session else { continue }
                actions.append(.disconnect(session, window))
                actions += sessionClosed(id, reason: "fault-device-offline", now: now)
            }
        }
    }

    /// Makes the session hold the tokens; it owns each unless a newer session already does.
    private mutating func claim(_ tokens: [DeviceToken], for id: DeviceSessionID, now: Int64, into actions: inout [Action]) {
        var gained: [DeviceToken] = []
        for token in tokens {
            sessions[id]?.tokens.insert(token)
            if let owner = owners[token] {
                // Why the newest session wins: after a reconnect the old connection's close may arrive
                // later (a half-open TCP connection); the new one is the one the device is listening on.
                guard owner.rawValue < id.rawValue else { continue }
                returnToStorage(token, from: owner, reason: "session-replaced", now: now, into: &actions)
            }
            owners[token] = id
            gained.append(token)
        }
        deliverPending(for: gained, now: now, into: &actions)
    }

    /// Makes the token's notifications held or sent on a session wait again; they are traced `stored`,
    /// or `expired` when their time is up (`apns-expiration: 0` gets a single attempt, spec §A.10).
    mutating func returnToStorage(_ token: DeviceToken, from id: DeviceSessionID, reason: String, now: Int64, into actions: inout [Action]) {
        for key in queues[token] ?? [] {
            guard let entry = entries[key] else { continue }
            switch entry.status {
            case .held(id), .outstanding(id):
                guard let deadline = entry.deadline else {
                    let detail = TraceDetail.object(["reason": .string("expiration-zero-unacknowledged"), "session": .string(id.description)])
                    finish(key, .expired, state: .expired, now: now, detail: detail, into: &actions)
                    continue
                }
                guard deadline > now else {
                    expire(key, now: now, into: &actions)
                    continue
                }
                if successors[key] != nil {
                    // Rule 13: a newer notification with this `apns-id` waited; the store replaced this one, which now
                    // cannot be acknowledged any more. The newer one waits in its place.
                    remove(key)
                    for sent in entry.sentOn { sessions[sent]?.retired.updateValue(entry.sequence, forKey: key) }
                    promoteSuccessor(of: key)
                    continue
                }
                if case .held = entry.status { sessions[id]?.held.removeAll { $0 == key } }
                setStatus(key, .pending)
                let detail = TraceDetail.object(["reason": .string(reason), "session": .string(id.description), "expiresAt": .int(deadline)])
                actions.append(
                    .record(
                        DeliveryChange(
                            notificationID: entry.notification.id,
                            sequence: entry.sequence,
                            event: .stored,
                            atMilliseconds: now,
                            detailJSON: detail
                        )
                    )
                )
            default:
                continue
            }
        }
        if sessions[id]?.held.isEmpty == true {
            sessions[id]?.burstDueAt = nil
            sessionsWithBursts.remove(id)
        }
    }

    /// Sends what waits for these tokens on their owners, oldest first; what expired meanwhile is `expired`.
    mutating func deliverPending(for tokens: [DeviceToken], now: Int64, into actions: inout [Action]) {
        var waiting: [(order: UInt64, key: String)] = []
        for token in tokens where owners[token] != nil {
            for key in queues[token] ?? [] {
                guard let entry = entries[key], entry.status == .pending else { continue }
                waiting.append((entry.order, key))
            }
        }
        waiting.sort { $0.order < $1.order }
        for (_, key) in waiting {
            guard let entry = entries[key], let owner = owners[entry.notification.token] else { continue }
            if Self.isExpired(entry, now: now) {
                expire(key, now: now, into: &actions)
            } else {
                send(key, on: owner, now: now, into: &actions)
            }
        }
    }

    /// Holds a low-priority notification on a session until its burst is due.
    mutating func hold(_ key: String, on id: DeviceSessionID, now: Int64) {
        guard sessions[id] != nil else { return }
        sessions[id]?.held.append(key)
        if sessions[id]?.burstDueAt == nil {
            sessions[id]?.burstDueAt = now + policy.lowPriorityBurstWindow.wholeMilliseconds
            sessionsWithBursts.insert(id)
        }
        setStatus(key, .held(id))
    }

    /// Sends every held notification of the sessions whose burst is due.
    mutating func flushDueBursts(now: Int64, into actions: inout [Action]) {
        for id in sessionsWithBursts.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let session = sessions[id], let due = session.burstDueAt, due <= now else { continue }
            sessions[id]?.held = []
            sessions[id]?.burstDueAt = nil
            sessionsWithBursts.remove(id)
            for key in session.held where entries[key]?.status == .held(id) {
                send(key, on: id, now: now, burst: true, into: &actions)
            }
        }
    }
}
