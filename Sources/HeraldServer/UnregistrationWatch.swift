import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging
import ServiceLifecycle

/// Tells the delivery engine about tokens unregistered by another process — `herald tokens unregister` writes the
/// store's file directly — so what waited for them is `discarded` (docs/delivery.md, rule 14).
///
/// Unregistrations made through the device link reach the engine at once; these are read from the file every
/// ``interval`` (the registry cache's refresh interval, so the gateway's `410` and the engine's `discarded` follow
/// an unregistration within the same bound). The first pass also finds tokens unregistered while no server ran.
public struct UnregistrationWatch: Service {
    let store: any NotificationStore
    let engine: DeliveryEngine
    /// The time between passes.
    public let interval: Duration
    let logger: Logger

    /// Creates the watch; it reads nothing until ``run()``.
    public init(store: any NotificationStore, engine: DeliveryEngine, interval: Duration, logger: Logger) {
        self.store = store
        self.engine = engine
        self.interval = interval
        self.logger = logger
    }

    /// Passes until graceful shutdown.
    public func run() async throws {
        var revision: Int64?
        await runPeriodically(every: interval) {
            do {
                revision = try await pass(after: revision)
            } catch {
                logger.warning("Reading unregistered tokens failed", metadata: ["store.error": "\(error)"])
            }
        }
    }

    /// One pass: reads the tokens unregistered since `revision` and hands them to the engine; returns the
    /// revision for the next pass.
    @discardableResult
    public func pass(after revision: Int64?) async throws -> Int64 {
        let found = try await store.unregisteredTokens(after: revision)
        for token in found.tokens {
            engine.tokenUnregistered(token.token, atMilliseconds: token.unregisteredAtMilliseconds ?? 0)
        }
        return found.revision
    }
}
