import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldStore

/// What `POST /api/v1/reset` (and the testing kit's ``HeraldServer/reset(_:)``) clears.
public struct ResetOptions: Sendable, Hashable {
    /// Every notification and its trace: those waiting are `discarded` (reason `reset`) first, then every
    /// notification in a final state is deleted; the web pushes the push service refused are forgotten.
    public var notifications = true
    /// Every fault rule, and the log of the requests they applied to.
    public var faults = true

    /// Both.
    public init(notifications: Bool = true, faults: Bool = true) {
        self.notifications = notifications
        self.faults = faults
    }
}

/// What a reset did.
public struct ResetResult: Sendable, Hashable {
    /// Notifications the engine held (waiting, held, sent and not acknowledged) that were discarded.
    public var discarded = 0
    /// Notifications deleted from the store, with their traces.
    public var deleted = 0
    /// Fault rules removed.
    public var faultsRemoved = 0
}

extension HeraldServer {
    /// Starts again between two tests without a restart (docs/testing-from-any-language.md): clears what `options`
    /// says. Devices, their tokens, apps and signing keys are kept, and connected devices stay connected.
    ///
    /// A notification accepted while the reset runs is either discarded and deleted or kept and delivered, never half
    /// of each: the engine discards what it holds and writes it, then only notifications in a final state are deleted.
    public func reset(_ options: ResetOptions = ResetOptions()) async throws -> ResetResult {
        try await Self.reset(store: store, engine: engine, faults: faults, refusals: webPushRefusals, options: options)
    }

    static func reset(
        store: any NotificationStore,
        engine: DeliveryEngine,
        faults: FaultTable,
        refusals: WebPushRefusalLog,
        options: ResetOptions
    ) async throws -> ResetResult {
        var result = ResetResult()
        if options.faults {
            result.faultsRemoved = faults.removeAll()
            faults.log.removeAll()
        }
        guard options.notifications else { return result }
        refusals.removeAll()
        result.discarded = await engine.discardAll(reason: "reset")
        var after: Int64 = 0
        while true {
            let batch = try await store.prune(acceptedBefore: .max, after: after, limit: 10_000)
            result.deleted += batch.deleted
            after = batch.lastSequence
            if batch.isComplete { break }
        }
        return result
    }

    /// The `fault` trace events of a request: what the fault log holds for its `apns-id`.
    static func faultTrace(_ log: FaultLog, _ id: NotificationID) -> [TraceEvent] {
        log.events(apnsID: id).map { event in
            TraceEvent(id: 0, notificationKey: event.key, atMilliseconds: event.atMilliseconds, kind: .fault, detailJSON: event.detailJSON)
        }
    }

    /// The `refused` trace event of a web push the push service refused (docs/web-push.md, "Seeing why"): its status,
    /// reason and explanation, kept in memory because nothing of a refused push is stored.
    static func refusalTrace(_ log: WebPushRefusalLog, _ id: NotificationID) -> [TraceEvent] {
        guard let refusal = log.refusal(apnsID: id) else { return [] }
        return [
            TraceEvent(
                id: 0,
                notificationKey: refusal.key,
                atMilliseconds: refusal.atMilliseconds,
                kind: TraceEventKind(rawValue: "refused"),
                detailJSON: refusal.detailJSON
            )
        ]
    }
}
