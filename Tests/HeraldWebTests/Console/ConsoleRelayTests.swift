import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Prometheus
import Synchronization
import Testing

@testable import HeraldWeb

/// The console across a cluster's nodes (docs/cluster.md, "The console"): ``ConsoleRelay`` and its messages. The store
/// the nodes share is a test double here (``ConsoleBus``); PostgresConsoleStoreTests covers PostgreSQL's, and
/// ClusterEndToEndTests the whole with real processes.
@Suite("Console relay: screens, events and interactions across nodes", .tier(.inProcess))
struct ConsoleRelayTests {
    static let app = "com.example.app"
    static let apnsID = NotificationID("8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01")!
    static let device = "0f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e02"

    @Test("Messages read back as written; anything else is not a message")
    func messageCoding() throws {
        let interaction = DeviceLinkInteraction(id: "", bundleID: Self.app, kind: .action, identifier: "n1", action: "REPLY", text: "hé \"there\"")
        let messages: [ConsoleRelayMessage] = [
            .events(
                from: "node-a",
                [.screen(deviceID: Self.device), .device(deviceID: Self.device, online: false), .trace(apnsID: Self.apnsID, event: "sent")],
                lost: 0
            ),
            .events(from: "node-a", [], lost: 12),
            .interact(from: "node-a", to: "node-b", reference: "node-a/1", deviceID: Self.device, interaction: interaction),
            .interacted(from: "node-b", to: "node-a", reference: "node-a/1", outcome: .done),
            .interacted(from: "node-b", to: "node-a", reference: "node-a/2", outcome: .refused("no such notification")),
            .interacted(from: "node-b", to: "node-a", reference: "node-a/3", outcome: .offline),
            .interacted(from: "node-b", to: "node-a", reference: "node-a/4", outcome: .timedOut),
            .interacted(from: "node-b", to: "node-a", reference: "node-a/5", outcome: .unreachable("why")),
            .watching(from: "node-a"),
        ]
        for message in messages { #expect(ConsoleRelayMessage(text: message.text) == message, "\(message.text)") }

        let garbage = [
            "", "null", "[]", "{}", #"{"events":[]}"#, #"{"from":1,"events":[]}"#, #"{"from":"a","events":[],"lost":-1}"#,
            #"{"from":"a","to":"b","interact":"r","deviceID":"d","frame":"{}"}"#,
            #"{"from":"a","to":"b","interact":"r","deviceID":"d","frame":"{\"type\":\"welcome\",\"device\":\"d\",\"name\":\"n\"}"}"#,
            #"{"from":"a","to":"b","interacted":"r","outcome":"maybe"}"#, #"{"from":"a","interacted":"r","outcome":"done"}"#,
            "{\"from\":\"a\",\"events\":[" + String(repeating: "[\"s\",\"d\"],", count: 10_000) + "[\"s\",\"d\"]]}",
        ]
        for text in garbage { #expect(ConsoleRelayMessage(text: text) == nil, "\(text.prefix(80))") }
        // Events a node does not read are skipped, not fatal (a newer node may send more kinds).
        let mixed = #"{"from":"a","events":[["s","d"],["future","x"],["t","not-a-uuid","sent"],["d","d"],5,["d","d",true]]}"#
        #expect(ConsoleRelayMessage(text: mixed) == .events(from: "a", [.screen(deviceID: "d"), .device(deviceID: "d", online: true)], lost: 0))
    }

    @Test("A flush coalesces: a notification's newest trace event, a device's newest screen and connection, in order")
    func coalescing() {
        let other = NotificationID("8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e03")!
        let events: [ConsoleEvent.Change] = [
            .device(deviceID: "d", online: true), .screen(deviceID: "d"), .trace(apnsID: Self.apnsID, event: "accepted"),
            .trace(apnsID: other, event: "accepted"), .trace(apnsID: Self.apnsID, event: "sent"), .screen(deviceID: "d"),
            .device(deviceID: "d", online: false),
        ]
        #expect(
            ConsoleRelay.coalesced(events) == [
                .trace(apnsID: other, event: "accepted"), .trace(apnsID: Self.apnsID, event: "sent"), .screen(deviceID: "d"),
                .device(deviceID: "d", online: false),
            ]
        )
    }

    @Test("Events split into messages of at most the store's size; what does not fit in the most messages is counted as lost")
    func splitting() throws {
        let changes = (0..<1000).map { _ in ConsoleEvent.Change.trace(apnsID: NotificationID(UUID().uuidString)!, event: "acknowledged") }
        let all = ConsoleRelay.messages(from: "node-a", changes, lost: 0, limit: 7_900, count: 100).map(\.text)
        #expect(all.count > 1)
        #expect(all.allSatisfy { $0.utf8.count <= 7_900 })
        let read = all.compactMap { ConsoleRelayMessage(text: $0) }
        #expect(read.count == all.count)
        var relayed: [ConsoleEvent.Change] = []
        for case .events(let from, let batch, let lost) in read {
            #expect(from == "node-a")
            #expect(lost == 0)
            relayed += batch
        }
        #expect(relayed == changes)

        let capped = ConsoleRelay.messages(from: "node-a", changes, lost: 5, limit: 7_900, count: 2).compactMap { ConsoleRelayMessage(text: $0.text) }
        #expect(capped.count == 2)
        guard case .events(_, let first, 0)? = capped.first, case .events(_, let second, let lost)? = capped.last else {
            Issue.record("expected two events messages, the last with lost: \(capped)")
            return
        }
        #expect(first.count + second.count + lost == 1000 + 5)
        #expect(lost > 5)
        // An event larger than any message is lost, never an oversized message; nothing to say is no message.
        let huge = ConsoleEvent.Change.screen(deviceID: String(repeating: "d", count: 8_000))
        #expect(
            ConsoleRelay.messages(from: "a", [huge], lost: 0, limit: 7_900, count: 8).compactMap { ConsoleRelayMessage(text: $0.text) } == [
                .events(from: "a", [], lost: 1)
            ]
        )
        #expect(ConsoleRelay.messages(from: "a", [], lost: 0, limit: 7_900, count: 8).isEmpty)
    }

    @Test("Node A's console reads the screen a device on node B sent, sees B's events, and drives the device through B")
    func acrossNodes() async throws {
        try await LinkServerFixture.with { fixture in
            let bus = ConsoleBus()
            let credentials = try await fixture.addDevice()
            let deviceID = credentials.device.id
            let hubA = ConsoleHub()
            let hubB = fixture.server.console
            let relayA = ConsoleRelay(hub: hubA, store: bus.node("node-a"), configuration: Self.fast, logger: Logger(label: "test.relay.a"))
            let relayB = ConsoleRelay(hub: hubB, store: bus.node("node-b"), configuration: Self.fast, logger: Logger(label: "test.relay.b"))
            let running = [Task { try await relayA.run() }, Task { try await relayB.run() }]
            defer { for task in running { task.cancel() } }

            // Unknown everywhere: no screen, offline, nothing to forward to.
            #expect(try await hubA.currentScreen(deviceID: deviceID).screen == nil)
            #expect(
                await hubA.interact(deviceID: deviceID, timeout: .seconds(1)) { DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .tap) }
                    == .offline
            )

            // No console reads node A's events: B's trace events stay on B; screens and connections are relayed anyway.
            hubB.traceRecorded(Self.apnsID, event: "unwatched")
            let client = try await fixture.connect(as: credentials)
            bus.route(deviceID, to: "node-b")
            let screenOnB = #"{"name":"on b","capturedAt":1,"apps":[]}"#
            try await client.send(.screen(json: Array(screenOnB.utf8)))
            try await eventually("node A reads B's screen", within: .seconds(60)) {
                try await hubA.currentScreen(deviceID: deviceID).screen.map { String(decoding: $0.json, as: UTF8.self) } == screenOnB
            }
            #expect(try await hubA.currentScreen(deviceID: deviceID).online)
            #expect(hubA.screen(deviceID: deviceID) == nil, "node A keeps no screen of its own for B's device")
            try await eventually("node A sees B's screen and connection events", within: .seconds(60)) {
                let changes = hubA.events.events(after: 0).events.map(\.change)
                return changes.contains(.device(deviceID: deviceID, online: true)) && changes.contains(.screen(deviceID: deviceID))
            }
            #expect(!hubA.events.events(after: 0).events.contains { $0.change == .trace(apnsID: Self.apnsID, event: "unwatched") })

            // A console reads node A's events: node B relays its trace events from then on (once it has heard so).
            hubA.readerArrived()
            var recorded = 0
            try await eventually("node A sees B's trace events", within: .seconds(60)) {
                hubB.traceRecorded(Self.apnsID, event: "displayed")
                recorded += 1
                return hubA.events.events(after: 0).events.contains { $0.change == .trace(apnsID: Self.apnsID, event: "displayed") }
            }
            // Relayed events are not relayed back.
            try await expectNothing(for: .milliseconds(100), "a relayed event relayed back to node B") {
                hubB.events.events(after: 0).events.filter { $0.change == .trace(apnsID: Self.apnsID, event: "displayed") }.count != recorded
            }

            // An interaction on A runs on the device's link on B; the device's answer comes back to A.
            for answer in [nil, "no such notification"] as [String?] {
                let outcome = Task {
                    await hubA.interact(deviceID: deviceID, timeout: .seconds(60)) { id in
                        DeviceLinkInteraction(id: id, bundleID: Self.app, kind: .action, identifier: "n1", action: "REPLY", text: "hi")
                    }
                }
                guard case .interact(let interaction) = try await client.nextMessage() else {
                    Issue.record("expected an interact frame")
                    return
                }
                #expect(interaction.identifier == "n1" && interaction.action == "REPLY" && interaction.text == "hi")
                try await client.send(.interacted(DeviceLinkInteractionResult(id: interaction.id, error: answer)))
                #expect(await outcome.value == (answer.map { .refused($0) } ?? .done))
            }
            // The store cannot say where the device is: unreachable, with why.
            bus.failing(true)
            let unreachable = await hubA.interact(deviceID: deviceID, timeout: .seconds(1)) {
                DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .tap)
            }
            guard case .unreachable(let why) = unreachable else {
                Issue.record("expected unreachable, got \(unreachable)")
                return
            }
            #expect(why.contains("did not say which node"))
            await #expect(throws: ConsoleBus.Failure.self) { try await hubA.currentScreen(deviceID: deviceID) }
            bus.failing(false)
            await client.close()
            // B no longer holds it (its route is gone): A forwards nothing and says offline.
            bus.route(deviceID, to: nil)
            #expect(
                await hubA.interact(deviceID: deviceID, timeout: .seconds(1)) { DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .tap) }
                    == .offline
            )
        }
    }

    @Test("A node runs at most so many forwarded interactions at once; one more is answered unreachable")
    func forwardedInteractionLimit() async throws {
        try await LinkServerFixture.with { fixture in
            let bus = ConsoleBus()
            let credentials = try await fixture.addDevice()
            let deviceID = credentials.device.id
            var configuration = Self.fast
            configuration.maximumForwardedInteractions = 1
            let hubA = ConsoleHub()
            let relayA = ConsoleRelay(hub: hubA, store: bus.node("node-a"), configuration: configuration, logger: Logger(label: "test.relay.a"))
            let relayB = ConsoleRelay(
                hub: fixture.server.console,
                store: bus.node("node-b"),
                configuration: configuration,
                logger: Logger(label: "test.relay.b")
            )
            let running = [Task { try await relayA.run() }, Task { try await relayB.run() }]
            defer { for task in running { task.cancel() } }
            try await eventually("both nodes listen", within: .seconds(60)) { bus.listenerCount == 2 }
            let client = try await fixture.connect(as: credentials)
            bus.route(deviceID, to: "node-b")

            func tap() -> Task<ConsoleHub.InteractionOutcome, Never> {
                Task {
                    await hubA.interact(deviceID: deviceID, timeout: .seconds(60)) {
                        DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .tap, identifier: "n1")
                    }
                }
            }
            let first = tap()
            guard case .interact(let running) = try await client.nextMessage() else {
                Issue.record("expected an interact frame")
                return
            }
            // The device has not answered the first: a second is refused by node B, not queued.
            let second = await tap().value
            guard case .unreachable(let why) = second else {
                Issue.record("expected unreachable, got \(second)")
                return
            }
            #expect(why.contains("runs 1 forwarded interactions already"), "\(why)")
            try await client.send(.interacted(DeviceLinkInteractionResult(id: running.id)))
            #expect(await first.value == .done)
            // Room again.
            let third = tap()
            guard case .interact(let next) = try await client.nextMessage() else {
                Issue.record("expected an interact frame")
                return
            }
            try await client.send(.interacted(DeviceLinkInteractionResult(id: next.id)))
            #expect(await third.value == .done)
            await client.close()
        }
    }

    @Test("More events between two flushes than a node keeps: the others' consoles get resync with the count")
    func lostEvents() async throws {
        let bus = ConsoleBus()
        var configuration = Self.fast
        configuration.maximumPendingEvents = 10
        let hubA = ConsoleHub()
        let hubB = ConsoleHub()
        let relayA = ConsoleRelay(hub: hubA, store: bus.node("node-a"), configuration: configuration, logger: Logger(label: "test.relay.a"))
        let metricsB = PrometheusCollectorRegistry()
        let relayB = ConsoleRelay(
            hub: hubB,
            store: bus.node("node-b"),
            configuration: configuration,
            metrics: metricsB,
            logger: Logger(label: "test.relay.b")
        )
        let listening = Task { try await relayA.run() }
        defer { listening.cancel() }
        relayB.received(ConsoleRelayMessage.watching(from: "node-a").text)
        for index in 0..<25 { hubB.traceRecorded(NotificationID(UUID().uuidString)!, event: "sent \(index)") }
        // B's relay is not running: flush it by hand, once A listens.
        try await eventually("node A listens", within: .seconds(60)) { bus.listenerCount > 0 }
        await relayB.flush()
        try await eventually("node A reads resync", within: .seconds(60)) {
            hubA.events.events(after: 0).events.contains { $0.change == .resync(lost: 15) }
        }
        #expect(hubA.events.events(after: 0).events.filter { if case .trace = $0.change { true } else { false } }.count == 10)
        var buffer: [UInt8] = []
        metricsB.emit(into: &buffer)
        let text = String(decoding: buffer, as: UTF8.self)
        #expect(text.contains(#"herald_console_relayed_events_total{result="relayed"} 10"#), "\(text)")
        #expect(text.contains(#"herald_console_relayed_events_total{result="lost"} 15"#), "\(text)")
    }

    /// Flushes every 20 ms; forwarded interactions wait up to 60 s.
    static var fast: ConsoleRelay.Configuration {
        var configuration = ConsoleRelay.Configuration()
        configuration.flushInterval = .milliseconds(20)
        // A forwarded interaction waits for its device as long as the test's own (a loaded machine took over 5 s).
        configuration.interactionTimeout = .seconds(60)
        return configuration
    }
}

/// A test double of what a cluster's nodes share for the console: screens and device routes in memory, and messages
/// delivered to every listener.
final class ConsoleBus: Sendable {
    struct Failure: Error {}

    private struct State {
        var screens: [String: SharedScreen] = [:]
        var routes: [String: String] = [:]
        var listeners: [AsyncStream<String>.Continuation] = []
        var failing = false
    }

    private let state = Mutex(State())

    /// The store as node `id` sees it.
    func node(_ id: String) -> Node { Node(id: id, bus: self) }

    func route(_ deviceID: String, to node: String?) { state.withLock { $0.routes[deviceID] = node } }
    func failing(_ failing: Bool) { state.withLock { $0.failing = failing } }
    var listenerCount: Int { state.withLock { $0.listeners.count } }

    fileprivate func check() throws {
        if state.withLock({ $0.failing }) { throw Failure() }
    }

    struct Node: ConsoleClusterStore {
        let id: String
        let bus: ConsoleBus

        var nodeID: String { id }
        var maximumConsoleMessageBytes: Int { 7_900 }

        func deviceNodes(deviceID: String?) async throws -> [String: [String]] {
            try bus.check()
            return bus.state.withLock { state in
                state.routes.filter { deviceID == nil || $0.key == deviceID }.mapValues { [$0] }
            }
        }

        func saveScreens(_ screens: [SharedScreen]) async throws {
            try bus.check()
            bus.state.withLock { state in
                for screen in screens where (state.screens[screen.deviceID]?.updatedAtMilliseconds ?? .min) <= screen.updatedAtMilliseconds {
                    state.screens[screen.deviceID] = screen
                }
            }
        }

        func sharedScreen(deviceID: String) async throws -> SharedScreen? {
            try bus.check()
            return bus.state.withLock { $0.screens[deviceID] }
        }

        func sharedScreenTimes(deviceID: String?) async throws -> [String: Int64] {
            try bus.check()
            return bus.state.withLock { state in
                state.screens.filter { deviceID == nil || $0.key == deviceID }.mapValues(\.updatedAtMilliseconds)
            }
        }

        func sendConsoleMessage(_ message: String) async throws {
            try bus.check()
            for listener in bus.state.withLock({ $0.listeners }) { listener.yield(message) }
        }

        func consoleMessages() -> AsyncStream<String> {
            let (stream, continuation) = AsyncStream.makeStream(of: String.self)
            bus.state.withLock { $0.listeners.append(continuation) }
            return stream
        }
    }
}
