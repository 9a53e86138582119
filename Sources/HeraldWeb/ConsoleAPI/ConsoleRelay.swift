import HeraldCore
import HeraldDeviceLink
import HeraldStore
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization

/// The web console of a cluster node, across nodes (docs/cluster.md, "The console"): every node's console shows and
/// drives every device, wherever its link is.
///
/// - **Screens**: a device's newest screen is written to the store by the node holding its link (the newest per device
///   every ``Configuration/flushInterval``); a console reads the store's when the device is not connected to its node.
/// - **Live events**: each node relays its own (screens, connections, trace events) as store messages every
///   ``Configuration/flushInterval``, after the screens they name are written; each node appends the other nodes' to
///   its event log. Trace events (one or more per notification) are relayed only while a console reads another node's
///   events: a node whose events are read says so every ``Configuration/watchInterval``, and the others relay their
///   trace events until three intervals pass without it. Per flush, a notification's trace events become its newest
///   one (what a console reads of them: that its trace changed) and a device's screens one; what does not fit in
///   ``Configuration/maximumMessagesPerFlush`` messages is counted as `lost`, which another node's console reads as
///   `resync` (refresh everything).
/// - **Interactions** for a device connected elsewhere go to the node holding its link, which runs them and answers
///   (at most ``Configuration/maximumForwardedInteractions`` at once; more are answered `unreachable`).
public final class ConsoleRelay: Service, Sendable {
    /// How often and how much it relays.
    public struct Configuration: Sendable {
        /// How often screens are written and events relayed. Default 200 ms.
        public var flushInterval: Duration = .milliseconds(200)
        /// The most messages of events one flush sends. Default 8.
        public var maximumMessagesPerFlush = 8
        /// The most events kept between two flushes; more are counted as lost. Default 50,000.
        public var maximumPendingEvents = 50_000
        /// How long the device holding the link has to answer an interaction another node forwarded (the console's
        /// own limit, `ConsoleAPI.Configuration.interactionTimeout`). Default 5 s.
        public var interactionTimeout: Duration = .seconds(5)
        /// How long a forwarded interaction waits for its answer beyond the device's own time limit. Default 2 s.
        public var forwardingMargin: Duration = .seconds(2)
        /// How often a node whose live events a console reads says so to the others (a console's long poll asks at
        /// least every 25 s). Default 5 s.
        public var watchInterval: Duration = .seconds(5)
        /// The most interactions other nodes forwarded that this node runs at once (each waits up to
        /// ``interactionTimeout`` for its device). Default 64.
        public var maximumForwardedInteractions = 64

        /// The defaults.
        public init() {}
    }

    private struct Outbox {
        var screens: [String: ConsoleHub.Screen] = [:]
        var events: [ConsoleEvent.Change] = []
        var lost = 0
        var waiting: [String: OneShot<ConsoleHub.InteractionOutcome>] = [:]
        var nextReference: UInt64 = 0
        /// Until when another node's console reads events (this node relays its trace events until then).
        var othersWatchUntil: ContinuousClock.Instant?
        /// Whether trace events are queued: `othersWatchUntil` is in the future (updated at each flush).
        var relaysTraces = false
        /// When a console last read this node's events, and when this node last said so.
        var readAt: ContinuousClock.Instant?
        var saidWatchingAt: ContinuousClock.Instant?
        /// Interactions other nodes forwarded that run now.
        var forwardedRunning = 0
    }

    let hub: ConsoleHub
    let store: any ConsoleClusterStore
    let configuration: Configuration
    let logger: Logger
    private let outbox = Mutex(Outbox())
    private let relayedEvents: Counter
    private let lostEvents: Counter

    /// A relay of `hub` through `store`, counted in `metrics`; it attaches itself to the hub.
    public init(
        hub: ConsoleHub,
        store: any ConsoleClusterStore,
        configuration: Configuration = .init(),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger
    ) {
        self.hub = hub
        self.store = store
        self.configuration = configuration
        self.logger = logger
        let events = MetricNameDescriptor(
            metricName: "herald_console_relayed_events_total",
            unitName: "",
            helpText: "This node's console events sent to the other nodes' consoles (after coalescing), or lost (too many between two flushes)."
        )
        relayedEvents = metrics.makeCounter(descriptor: events, labels: [("result", "relayed")])
        lostEvents = metrics.makeCounter(descriptor: events, labels: [("result", "lost")])
        hub.attach(self)
    }

    /// This node's id.
    var nodeID: String { store.nodeID }

    /// Listens for the other nodes' messages and flushes this node's, until shutdown.
    public func run() async throws {
        let messages = store.consoleMessages()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in messages.cancelOnGracefulShutdown() { self.received(text) }
            }
            group.addTask {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    await self.flush()
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.flushInterval) }
                }
                await self.flush()
            }
        }
    }

    // MARK: This node's screens and events

    /// Queues one of this node's events for the other nodes; a trace event only while another node's console reads.
    func relay(_ change: ConsoleEvent.Change) {
        outbox.withLock { queue(change, in: &$0) }
    }

    /// Queues a screen this node received for the store, and its event for the other nodes.
    func relay(screen: ConsoleHub.Screen, deviceID: String) {
        outbox.withLock { outbox in
            outbox.screens[deviceID] = screen
            queue(.screen(deviceID: deviceID), in: &outbox)
        }
    }

    private func queue(_ change: ConsoleEvent.Change, in outbox: inout Outbox) {
        if case .trace = change, !outbox.relaysTraces { return }
        if outbox.events.count < configuration.maximumPendingEvents {
            outbox.events.append(change)
        } else {
            outbox.lost += 1
        }
    }

    /// A console reads this node's live events.
    func readerArrived() {
        let now = ContinuousClock.now
        outbox.withLock { $0.readAt = now }
    }

    /// Writes the queued screens, then relays the queued events. A screen the store did not take is kept for the next
    /// flush unless a newer one came meanwhile; its event is relayed anyway (a console reads what the store has). Says
    /// that this node's events are read, when they are.
    func flush() async {
        let now = ContinuousClock.now
        let (screens, events, lost, sayWatching) = outbox.withLock { outbox in
            defer {
                outbox.screens = [:]
                outbox.events = []
                outbox.lost = 0
            }
            outbox.relaysTraces = outbox.othersWatchUntil.map { now < $0 } ?? false
            // A long poll lasts up to 25 s: a reader counts as reading for 30 s after its last request.
            let reading = outbox.readAt.map { now < $0 + .seconds(30) } ?? false
            let due = outbox.saidWatchingAt.map { now >= $0 + configuration.watchInterval } ?? true
            if reading && due { outbox.saidWatchingAt = now }
            return (outbox.screens, outbox.events, outbox.lost, reading && due)
        }
        if sayWatching {
            do {
                try await store.sendConsoleMessage(ConsoleRelayMessage.watching(from: nodeID).text)
            } catch {
                logger.warning("Telling other nodes that a console reads failed", metadata: ["store.error": "\(error)"])
                outbox.withLock { $0.saidWatchingAt = nil }
            }
        }
        if !screens.isEmpty {
            let shared = screens.map {
                SharedScreen(deviceID: $0.key, json: $0.value.json, updatedAtMilliseconds: $0.value.updatedAtMilliseconds, nodeID: nodeID)
            }
            do {
                try await store.saveScreens(shared)
            } catch {
                logger.warning("Saving screens for other nodes failed; trying again", metadata: ["store.error": "\(error)"])
                outbox.withLock { outbox in
                    for (deviceID, screen) in screens where outbox.screens[deviceID] == nil { outbox.screens[deviceID] = screen }
                }
            }
        }
        guard !events.isEmpty || lost > 0 else { return }
        let coalesced = Self.coalesced(events)
        let messages = Self.messages(
            from: nodeID,
            coalesced,
            lost: lost,
            limit: store.maximumConsoleMessageBytes,
            count: configuration.maximumMessagesPerFlush
        )
        var unsent = lost + coalesced.count
        for message in messages {
            do {
                try await store.sendConsoleMessage(message.text)
            } catch {
                logger.warning("Relaying console events failed", metadata: ["store.error": "\(error)"])
                break
            }
            relayedEvents.increment(by: Int64(message.count))
            unsent -= message.count
        }
        if unsent > 0 { lostEvents.increment(by: Int64(unsent)) }
    }

    /// Each notification's newest trace event and each device's newest connection change and screen, in the order of
    /// their newest occurrence.
    static func coalesced(_ events: [ConsoleEvent.Change]) -> [ConsoleEvent.Change] {
        enum Key: Hashable {
            case screen(String)
            case device(String)
            case trace(NotificationID)
        }
        var seen = Set<Key>()
        var kept: [ConsoleEvent.Change] = []
        for change in events.reversed() {
            let key: Key
            switch change {
            case .screen(let deviceID): key = .screen(deviceID)
            case .device(let deviceID, _): key = .device(deviceID)
            case .trace(let apnsID, _): key = .trace(apnsID)
            case .resync: continue
            }
            if seen.insert(key).inserted { kept.append(change) }
        }
        return kept.reversed()
    }

    /// The `events` messages for `changes`, each at most `limit` bytes, at most `count` of them; what does not fit is
    /// added to `lost`, which the last message carries. None when there is nothing to say. Each with how many events
    /// it carries.
    static func messages(
        from nodeID: String,
        _ changes: [ConsoleEvent.Change],
        lost: Int,
        limit: Int,
        count: Int
    ) -> [(text: String, count: Int)] {
        // Room for `{"from":…,"events":[` … `],"lost":N}`.
        let overhead = ConsoleRelayMessage.events(from: nodeID, [], lost: Int.max).text.utf8.count
        var batches: [[ConsoleEvent.Change]] = [[]]
        var size = overhead
        var relayed = 0
        for change in changes {
            let bytes = ConsoleRelayMessage.event(change).count + 1
            guard overhead + bytes <= limit else { continue }  // fits in no message (an id of kilobytes): lost
            if size + bytes > limit {
                guard batches.count < count else { break }
                batches.append([])
                size = overhead
            }
            batches[batches.count - 1].append(change)
            size += bytes
            relayed += 1
        }
        let unsent = lost + changes.count - relayed
        guard relayed > 0 || unsent > 0 else { return [] }
        return batches.indices.map { index in
            let text = ConsoleRelayMessage.events(from: nodeID, batches[index], lost: index == batches.count - 1 ? unsent : 0).text
            return (text, batches[index].count)
        }
    }

    // MARK: Other nodes' messages

    /// Handles one message from the store: another node's events, an interaction for a device connected here, or the
    /// answer to one this node forwarded. Its own and other nodes' messages to others are skipped.
    func received(_ text: String) {
        guard let message = ConsoleRelayMessage(text: text) else {
            logger.debug("Skipped a console message that is not one", metadata: ["bytes": "\(text.utf8.count)"])
            return
        }
        switch message {
        case .events(let from, let changes, let lost):
            guard from != nodeID else { return }
            hub.recordRelayed(changes + (lost > 0 ? [.resync(lost: lost)] : []))
        case .interact(let from, let to, let reference, let deviceID, let interaction):
            guard to == nodeID else { return }
            let admitted = outbox.withLock { outbox in
                guard outbox.forwardedRunning < configuration.maximumForwardedInteractions else { return false }
                outbox.forwardedRunning += 1
                return true
            }
            Task {
                let outcome: ConsoleHub.InteractionOutcome
                if admitted {
                    outcome = await hub.interact(deviceID: deviceID, timeout: configuration.interactionTimeout, locally: true) { id in
                        var local = interaction
                        local.id = id
                        return local
                    }
                    outbox.withLock { $0.forwardedRunning -= 1 }
                } else {
                    outcome = .unreachable(
                        "node \(nodeID) runs \(configuration.maximumForwardedInteractions) forwarded interactions already; try again"
                    )
                }
                let answer = ConsoleRelayMessage.interacted(from: nodeID, to: from, reference: reference, outcome: outcome)
                do {
                    try await store.sendConsoleMessage(answer.text)
                } catch {
                    logger.warning("Answering a forwarded interaction failed", metadata: ["store.error": "\(error)"])
                }
            }
        case .watching(let from):
            guard from != nodeID else { return }
            let until = ContinuousClock.now + configuration.watchInterval * 3
            outbox.withLock { outbox in
                outbox.othersWatchUntil = max(outbox.othersWatchUntil ?? until, until)
                outbox.relaysTraces = true
            }
        case .interacted(_, let to, let reference, let outcome):
            guard to == nodeID else { return }
            let waiter = outbox.withLock { $0.waiting.removeValue(forKey: reference) }
            _ = waiter?.fulfil(outcome)
        }
    }

    // MARK: What the hub asks

    /// Sends an interaction to the node holding the device's link and waits for its answer: `offline` when no live
    /// node holds it, `unreachable` when the store does not carry it.
    func forward(deviceID: String, interaction: DeviceLinkInteraction, timeout: Duration) async -> ConsoleHub.InteractionOutcome {
        let nodes: [String]
        do {
            nodes = try await store.deviceNodes(deviceID: deviceID)[deviceID.lowercased()] ?? []
        } catch {
            return .unreachable("the store did not say which node holds device \(deviceID): \(error)")
        }
        guard let node = nodes.first(where: { $0 != nodeID }) else { return .offline }
        let waiter = OneShot<ConsoleHub.InteractionOutcome>()
        let reference = outbox.withLock { outbox in
            outbox.nextReference += 1
            let reference = "\(nodeID)/\(outbox.nextReference)"
            outbox.waiting[reference] = waiter
            return reference
        }
        defer { _ = outbox.withLock { $0.waiting.removeValue(forKey: reference) } }
        let message = ConsoleRelayMessage.interact(from: nodeID, to: node, reference: reference, deviceID: deviceID, interaction: interaction).text
        guard message.utf8.count <= store.maximumConsoleMessageBytes else {
            return .unreachable(
                "the interaction is too large to relay to node \(node) (\(message.utf8.count) bytes; at most \(store.maximumConsoleMessageBytes))"
            )
        }
        do {
            try await store.sendConsoleMessage(message)
        } catch {
            return .unreachable("the store did not relay the interaction to node \(node): \(error)")
        }
        return await waiter.value(within: timeout + configuration.forwardingMargin, otherwise: .timedOut)
    }

    /// The device's screen: the store's when it is newer than `local`, and online when a live node holds its link.
    func sharedScreen(deviceID: String, newerThan local: ConsoleHub.Screen?) async throws -> (screen: ConsoleHub.Screen?, online: Bool) {
        async let nodes = store.deviceNodes(deviceID: deviceID)
        let shared = try await store.sharedScreen(deviceID: deviceID)
        let online = !((try await nodes)[deviceID.lowercased()] ?? []).isEmpty
        guard let shared, shared.updatedAtMilliseconds > local?.updatedAtMilliseconds ?? .min else { return (local, online) }
        return (ConsoleHub.Screen(json: shared.json, updatedAtMilliseconds: shared.updatedAtMilliseconds), online)
    }
}
