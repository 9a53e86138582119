import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

@testable import HeraldDelivery

/// Runs an engine in a task group, runs the body, then shuts the engine down gracefully and waits for it.
func withRunningEngine<T: Sendable>(
    store: any DeliveryStore,
    clock: ManualWallClock = ManualWallClock(milliseconds: t0),
    configuration: DeliveryEngine.Configuration = .forTests,
    restoreFirst: Bool = false,
    cluster: (any ClusterStore)? = nil,
    _ body: @Sendable (DeliveryEngine) async throws -> T
) async throws -> T {
    let engine = DeliveryEngine(
        store: store,
        configuration: configuration,
        clock: clock,
        cluster: cluster,
        logger: Logger(label: "test.delivery")
    )
    if restoreFirst { try await engine.restore() }
    let group = ServiceGroup(services: [engine], logger: Logger(label: "test.group"))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let result = try await body(engine)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}

extension DeliveryEngine.Configuration {
    /// Tests drive ticks themselves (`engine.tick()`) unless they ask for the ticker; retries are quick.
    static var forTests: Self {
        var configuration = Self()
        configuration.tickInterval = .seconds(3600)
        configuration.journalRetryDelay = .milliseconds(1)
        return configuration
    }
}
