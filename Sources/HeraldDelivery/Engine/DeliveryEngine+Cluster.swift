import HeraldCore
import HeraldStore
import Logging

/// How rows read from the shared store reached a cluster node (docs/cluster.md).
enum AdoptionSource: Sendable {
    /// Another node committed them for a token routed here and said so (`NOTIFY`).
    case handOff
    /// The periodic read of what waits for the tokens routed here.
    case sweep
    /// What waited when a device connected (or an app registered): the offline rules apply to it first.
    case connection
}

/// A route write a cluster node's event loop decided; the route writer performs them one at a time, in order.
enum ClusterOperation: Sendable {
    /// A session here holds these tokens: write their routes, then take what waits for them.
    case claim([DeviceToken], atConnection: Bool)
    /// No session here holds these tokens any more.
    case release([DeviceToken])
    /// The token was unregistered: what no live node holds is discarded in the store.
    case discardUnrouted(DeviceToken, atMilliseconds: Int64)
}

extension DeliveryEngine {
    /// How long a finished sequence is remembered after its change was written (``RecentlyFinished``).
    static let finishedMemoryMilliseconds: Int64 = 30_000

    /// The cluster node's tasks, run beside the event loop until cancelled: the route writer, the sweep, the
    /// heartbeat and the hand-off listener.
    func runCluster(_ cluster: any ClusterStore, in group: inout TaskGroup<Void>) {
        group.addTask { await self.writeRoutes(cluster) }
        group.addTask { await self.sweep(cluster) }
        group.addTask { await self.beat(cluster) }
        group.addTask { await self.takeHandOffs(cluster) }
        group.addTask { await self.expireUnheld(cluster) }
    }

    /// Expires what waits for devices no node holds once its time is up, as one node's engine does at its tick (one
    /// node at a time does it; docs/cluster.md).
    private func expireUnheld(_ cluster: any ClusterStore) async {
        let defaultStorage = configuration.policy.defaultStorage.wholeMilliseconds
        await every(configuration.expiryInterval) {
            do {
                var count = 0
                repeat {
                    count = try await cluster.expireUnrouted(
                        nowMilliseconds: clock.nowMilliseconds(),
                        defaultStorageMilliseconds: defaultStorage,
                        limit: 1000
                    )
                    if count > 0 {
                        metrics.expired.increment(by: Int64(count))
                        logger.debug("expired what no node holds", metadata: ["delivery.count": "\(count)"])
                    }
                } while count == 1000
            } catch {
                logger.debug("cluster expiry failed", metadata: ["delivery.error": "\(error)"])
            }
        }
    }

    /// Runs `body` every `interval` of the tick clock until the task is cancelled.
    private func every(_ interval: Duration, _ body: () async -> Void) async {
        while (try? await tickClock.sleep(for: interval)) != nil {
            await body()
        }
    }

    /// Performs route writes in the order they were decided; a failed one is tried again through the event loop, for
    /// the tokens that are still (or no longer) held here by then.
    private func writeRoutes(_ cluster: any ClusterStore) async {
        for await operation in clusterOps {
            do {
                switch operation {
                case .claim(let tokens, let atConnection):
                    let rows = try await cluster.claimRoutes(tokens)
                    enqueue(.claimed(tokens, rows: rows, atConnection: atConnection))
                case .release(let tokens):
                    try await cluster.releaseRoutes(tokens)
                case .discardUnrouted(let token, let at):
                    let count = try await cluster.discardUnrouted(token: token, atMilliseconds: at)
                    if count > 0 { logger.debug("discarded what waited for an unregistered token", metadata: ["delivery.count": "\(count)"]) }
                }
            } catch {
                // At shutdown: the node leaves the cluster next, which removes all its routes.
                if Task.isCancelled { return }
                logger.info("cluster route write failed; trying again", metadata: ["delivery.error": "\(error)"])
                metrics.routeFailures.increment()
                switch operation {
                case .claim(let tokens, _): retryLater(tokens, claim: true)
                case .release(let tokens): retryLater(tokens, claim: false)
                case .discardUnrouted: break
                }
            }
        }
    }

    private func retryLater(_ tokens: [DeviceToken], claim: Bool) {
        let delay = configuration.routeRetryDelay
        let clock = tickClock
        Task {
            try? await clock.sleep(for: delay)
            self.enqueue(.retryRoutes(tokens, claim: claim))
        }
    }

    /// Reads what waits in the store for the tokens routed here, every sweep interval: a notification committed on
    /// another node while its device's route was being written here was handed off to no one.
    private func sweep(_ cluster: any ClusterStore) async {
        await every(configuration.sweepInterval) {
            do {
                let rows = try await cluster.storedForRoutedTokens()
                if !rows.isEmpty { enqueue(.adopted(rows, source: .sweep)) }
            } catch {
                logger.debug("cluster sweep failed", metadata: ["delivery.error": "\(error)"])
            }
        }
    }

    /// Renews this node's lease every heartbeat interval.
    private func beat(_ cluster: any ClusterStore) async {
        await every(configuration.heartbeatInterval) {
            do {
                try await cluster.heartbeat()
            } catch {
                logger.info("cluster heartbeat failed", metadata: ["delivery.error": "\(error)"])
            }
        }
    }

    /// Takes the notifications other nodes hand off to this one: one read for every hand-off that arrived while the
    /// previous read ran (``HandOffBuffer``).
    private func takeHandOffs(_ cluster: any ClusterStore) async {
        let buffer = HandOffBuffer()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await sequences in cluster.handOffs() { buffer.append(sequences) }
                buffer.finish()
            }
            while let sequences = await buffer.takeAll() {
                do {
                    let rows = try await cluster.storedNotifications(sequences: sequences)
                    if !rows.isEmpty { enqueue(.adopted(rows, source: .handOff)) }
                } catch {
                    // The sweep finds them.
                    logger.debug("reading handed-off notifications failed", metadata: ["delivery.error": "\(error)"])
                }
            }
            group.cancelAll()
        }
    }

    /// Stops being a node: the routes go and the lease ends (at shutdown, after the event loop).
    func leaveCluster(_ cluster: any ClusterStore) async {
        do {
            try await cluster.leave()
        } catch {
            logger.info("leaving the cluster failed; the lease ends by itself", metadata: ["delivery.error": "\(error)"])
        }
    }
}
