import ArgumentParser
import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// `herald-bench engine`: the delivery engine alone, in this process, with no network and no disk — what the engine
/// costs per delivered notification (bench/engine/README.md).
///
/// Devices are sessions that acknowledge each notification as soon as the engine hands it to them; the engine's changes
/// go to a store that counts and discards them. Notifications are accepted in groups (as the group commit hands them
/// over), the engine runs as in `herald serve`, and the process's CPU time (user + system, `getrusage`) per delivered
/// notification is the figure: unlike wall time it is barely moved by a shared machine's other load.
struct EngineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "The delivery engine alone, in process: CPU time per delivered notification (accepted, sent, acknowledged)."
    )

    @Option(help: "Connected devices (one session and one token each).")
    var devices = 1000

    @Option(help: "Notifications per round.")
    var notifications = 100_000

    @Option(help: "Rounds; the first is a warm-up and is not counted.")
    var rounds = 6

    @Option(help: "Notifications accepted between two waits for the engine to catch up (a group commit's size).")
    var group = 100

    func validate() throws {
        guard devices >= 1, notifications >= 1, rounds >= 2, group >= 1 else {
            throw ValidationError("--devices, --notifications and --group must be at least 1, --rounds at least 2")
        }
    }

    func run() async throws {
        var logger = Logger(label: "herald-bench.engine")
        logger.logLevel = .warning
        let store = DiscardingStore()
        let engine = DeliveryEngine(store: store, logger: logger)
        let tokens = (0..<devices).map { _ in DeviceToken.random() }
        let sessions = tokens.indices.map { AcknowledgingSession(deviceID: "bench-\($0)", engine: engine) }
        let payload = Array(#"{"aps":{"alert":{"title":"Bench","body":"\#(String(repeating: "x", count: 150))"}}}"#.utf8)
        let services = ServiceGroup(services: [engine], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            for (session, token) in zip(sessions, tokens) { engine.sessionOpened(session, tokens: [token]) }
            await engine.waitUntilIdle()
            var sequence: Int64 = 0
            var perNotification: [Double] = []
            var wallPerNotification: [Double] = []
            for round in 1...rounds {
                // Built before the clock starts: the engine's cost, not the driver's.
                let batch = (0..<notifications).map { index in
                    let token = tokens[index % tokens.count]
                    return AcceptedNotification(
                        id: .random(),
                        token: token,
                        topic: "com.example.bench",
                        bundleID: "com.example.bench",
                        environment: .sandbox,
                        pushType: .alert,
                        priority: .immediate,
                        expiration: nil,
                        collapseID: nil,
                        payload: payload,
                        acceptedAtMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)
                    )
                }
                let delivered = sessions.reduce(0) { $0 + $1.count }
                let cpu = ProcessSample.ownCPUSeconds()
                let wall = ContinuousClock.now
                for start in stride(from: 0, to: batch.count, by: group) {
                    for notification in batch[start..<min(start + group, batch.count)] {
                        sequence += 1
                        engine.accepted(notification, sequence: sequence)
                    }
                    await engine.waitUntilIdle()
                }
                // The acknowledgements of the last group were queued behind the last wait.
                while engine.counts.outstanding > 0 { await engine.waitUntilIdle() }
                let cpuSeconds = ProcessSample.ownCPUSeconds() - cpu
                let wallSeconds = (ContinuousClock.now - wall) / .seconds(1)
                let count = sessions.reduce(0) { $0 + $1.count } - delivered
                guard count == notifications else {
                    throw BenchFailure("round \(round): \(count) of \(notifications) notifications delivered")
                }
                let micros = cpuSeconds * 1e6 / Double(count)
                let wallMicros = wallSeconds * 1e6 / Double(count)
                print(
                    String(
                        format: "round %d%@: %.2f µs CPU, %.2f µs wall per delivered notification",
                        round,
                        round == 1 ? " (warm-up)" : "",
                        micros,
                        wallMicros
                    )
                )
                if round > 1 {
                    perNotification.append(micros)
                    wallPerNotification.append(wallMicros)
                }
            }
            let changes = store.count
            print(
                String(
                    format:
                        "engine: %.2f µs CPU per delivered notification (median of %d rounds; wall %.2f µs; %d devices, groups of %d; %d changes written)",
                    median(perNotification) ?? 0,
                    perNotification.count,
                    median(wallPerNotification) ?? 0,
                    devices,
                    group,
                    changes
                )
            )
            await services.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// A store that counts the engine's changes and keeps none.
private final class DiscardingStore: DeliveryStore {
    private let changes = Atomic<Int>(0)

    var count: Int { changes.load(ordering: .relaxed) }

    func pendingNotifications() async throws -> [StoredNotification] { [] }

    func record(_ changes: [DeliveryChange]) async throws {
        self.changes.add(changes.count, ordering: .relaxed)
    }
}

/// A device that acknowledges each notification as soon as the engine hands it over, as a device link's device does
/// when its frame arrives.
private final class AcknowledgingSession: DeviceSession {
    let id = DeviceSessionID.next()
    let deviceID: String
    private let engine: DeliveryEngine
    private let received = Atomic<Int>(0)

    init(deviceID: String, engine: DeliveryEngine) {
        self.deviceID = deviceID
        self.engine = engine
    }

    var count: Int { received.load(ordering: .relaxed) }

    func deliver(_ delivery: NotificationDelivery) {
        received.add(1, ordering: .relaxed)
        engine.acknowledged(delivery.notification.id, session: id)
    }

    func refuse(_ id: NotificationID, code: String, message: String) {}

    func disconnect(code: String, message: String, retryAfterMilliseconds: Int64) {}
}
