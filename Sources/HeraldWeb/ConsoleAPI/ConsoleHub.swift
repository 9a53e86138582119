import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import Synchronization

/// What the web console reads live, in memory only: each device's newest screen, which devices are connected (so
/// an interaction can be sent), interactions waiting for their `interacted`, and the event log.
///
/// The device-link server feeds it (screens, `interacted`, sessions), the delivery engine adds trace events, and
/// ``ConsoleAPI`` reads it. Every method is callable from any thread and none blocks.
public final class ConsoleHub: Sendable {
    /// A device's newest screen.
    public struct Screen: Sendable, Hashable {
        /// The device's `DeviceSnapshot` as it sent it: the text of a JSON object.
        public var json: [UInt8]
        /// When it arrived, in milliseconds since the epoch.
        public var updatedAtMilliseconds: Int64
    }

    /// How an interaction went (in HeraldDeviceLink, whose console relay messages carry it between a cluster's nodes).
    public typealias InteractionOutcome = ConsoleInteractionOutcome

    private struct State {
        var screens: [String: Screen] = [:]
        /// Each device's open links, oldest first: interactions go to the newest.
        var sessions: [String: [DeviceLinkSession]] = [:]
        var pending: [String: OneShot<InteractionOutcome>] = [:]
        var nextInteraction: UInt64 = 0
        var closed = false
    }

    /// The live updates.
    public let events: ConsoleEventLog
    private let state = Mutex(State())
    /// On a cluster node: what shares this hub's events and screens with the other nodes' consoles. A lock of its own:
    /// every trace event reads it, and none should wait for the sessions' lock for that.
    private let relay = Mutex<ConsoleRelay?>(nil)

    /// An empty hub.
    public init(events: ConsoleEventLog = ConsoleEventLog()) {
        self.events = events
    }

    /// The device's newest screen, if it ever sent one (kept after it disconnects).
    public func screen(deviceID: String) -> Screen? {
        state.withLock { $0.screens[deviceID] }
    }

    /// Whether the device has an open device link.
    public func isOnline(deviceID: String) -> Bool {
        state.withLock { $0.sessions[deviceID] != nil }
    }

    /// The device's newest screen and whether it is online: on a cluster node, of the whole cluster (the screen the
    /// store keeps when it is newer than this node's, and online when any node holds the device's link).
    public func currentScreen(deviceID: String) async throws -> (screen: Screen?, online: Bool) {
        let local = screen(deviceID: deviceID)
        let online = isOnline(deviceID: deviceID)
        guard !online, let relay = relay.withLock({ $0 }) else { return (local, online) }
        return try await relay.sharedScreen(deviceID: deviceID, newerThan: local)
    }

    /// Records a trace event (the delivery engine calls it once the event is written).
    public func traceRecorded(_ apnsID: NotificationID, event: String) {
        record(.trace(apnsID: apnsID, event: event))
    }

    /// Appends an event of this node, and hands it to the relay on a cluster node.
    private func record(_ change: ConsoleEvent.Change) {
        events.append(change)
        relay.withLock { $0 }?.relay(change)
    }

    /// A console reads the live events (`GET /api/v1/events`): on a cluster node, the other nodes relay their trace
    /// events while one does (``ConsoleRelay``).
    func readerArrived() {
        relay.withLock { $0 }?.readerArrived()
    }

    /// Appends events that other nodes relayed (they are not relayed again).
    func recordRelayed(_ changes: [ConsoleEvent.Change]) {
        for change in changes { events.append(change) }
    }

    /// Shares this hub's events and screens with the other nodes of a cluster, and sends interactions for devices
    /// connected elsewhere through it (``ConsoleRelay``).
    func attach(_ relay: ConsoleRelay) {
        self.relay.withLock { $0 = relay }
    }

    /// On a cluster node, when each device's screen (or the one `deviceID` names) was saved for the whole cluster;
    /// `nil` on a single node.
    public func sharedScreenTimes(deviceID: String?) async throws -> [String: Int64]? {
        try await relay.withLock { $0 }?.store.sharedScreenTimes(deviceID: deviceID)
    }

    /// Sends an `interact` frame to the device's newest link and waits up to `timeout` for its `interacted`. On a
    /// cluster node, a device without a link here gets it through the node holding its link (unless `locally`).
    ///
    /// - Parameter interaction: makes the frame's body from the request id the hub chose.
    public func interact(
        deviceID: String,
        timeout: Duration,
        locally: Bool = false,
        _ interaction: (_ id: String) -> DeviceLinkInteraction
    ) async -> InteractionOutcome {
        let waiter = OneShot<InteractionOutcome>()
        enum Route {
            case here(DeviceLinkSession, String)
            case relayed(ConsoleRelay)
            case offline
        }
        let relay = locally ? nil : self.relay.withLock { $0 }
        let route = state.withLock { state -> Route in
            guard !state.closed else { return .offline }
            guard let session = state.sessions[deviceID]?.last else { return relay.map { .relayed($0) } ?? .offline }
            state.nextInteraction += 1
            let id = "console-\(state.nextInteraction)"
            state.pending[id] = waiter
            return .here(session, id)
        }
        let session: DeviceLinkSession
        let id: String
        switch route {
        case .here(let found, let foundID): (session, id) = (found, foundID)
        case .relayed(let relay): return await relay.forward(deviceID: deviceID, interaction: interaction(""), timeout: timeout)
        case .offline: return .offline
        }
        session.interact(interaction(id))
        let outcome = await waiter.value(within: timeout, otherwise: .timedOut)
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
        return outcome
    }

    /// Wakes every waiting reader and interaction (the server is shutting down).
    public func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        relay.withLock { $0 = nil }
        for waiter in waiters { waiter.fulfil(.offline) }
        events.close()
    }

    // MARK: Fed by the device-link server

    /// A device authenticated on a link: interactions go to it from now on. Returns the device's links that were open
    /// before it, oldest first (the connection closes them: the newest link replaces them).
    @discardableResult
    func sessionOpened(_ session: DeviceLinkSession) -> [DeviceLinkSession] {
        let older = state.withLock { state in
            defer { state.sessions[session.deviceID, default: []].append(session) }
            return state.sessions[session.deviceID] ?? []
        }
        record(.device(deviceID: session.deviceID, online: true))
        return older
    }

    /// A device's link closed; interactions go to its other open link, if any.
    func sessionClosed(_ session: DeviceLinkSession) {
        let offline = state.withLock { state -> Bool in
            guard var open = state.sessions[session.deviceID] else { return false }
            open.removeAll { $0.id == session.id }
            state.sessions[session.deviceID] = open.isEmpty ? nil : open
            return open.isEmpty
        }
        if offline { record(.device(deviceID: session.deviceID, online: false)) }
    }

    /// A device sent its screen.
    func screenReceived(deviceID: String, json: [UInt8], atMilliseconds: Int64) {
        let screen = Screen(json: json, updatedAtMilliseconds: atMilliseconds)
        state.withLock { $0.screens[deviceID] = screen }
        events.append(.screen(deviceID: deviceID))
        // The relay writes the screen before it relays its event, so that another node's console reads this screen.
        relay.withLock { $0 }?.relay(screen: screen, deviceID: deviceID)
    }

    /// A device answered an `interact`; an answer nobody waits for (it came too late) is ignored.
    func interacted(_ result: DeviceLinkInteractionResult) {
        let waiter = state.withLock { $0.pending.removeValue(forKey: result.id) }
        waiter?.fulfil(result.error.map { .refused($0) } ?? .done)
    }
}
