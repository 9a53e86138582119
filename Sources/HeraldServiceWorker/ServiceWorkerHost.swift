import Foundation
import HeraldCore

/// Runs a web app's service worker (`sw.js`) under Node, one event at a time, and reports what it did.
///
/// The worker runs in a `node` process with Herald's scope (docs/service-worker-scope.md): ``start()`` loads the
/// script and runs `install` and `activate`; ``push(data:)`` and the notification events follow, each answered with a
/// ``ServiceWorkerOutcome`` once the worker is done or its time budget has passed. A worker that hangs costs its event
/// the budget and its process, never the caller: the process is killed, and the next event starts a new one (the
/// script loaded again, as a browser wakes a worker it had stopped). ``stop()`` ends the process; so does the host's
/// end.
///
/// The host keeps what the worker has on screen (``displayed``) and gives it to the worker with every event, so that
/// `getNotifications()` answers the same after a restart.
public actor ServiceWorkerHost {
    /// The script, its origin, the budget and the limits.
    public nonisolated let configuration: ServiceWorkerConfiguration
    /// The notifications on screen: shown by the worker, not closed by it or dismissed since.
    public internal(set) var displayed: [WebNotification] = []
    var process: ServiceWorkerProcess?
    var directory: URL?
    var nextEvent: Int64 = 1
    /// Whether an event (or the start, or the stop) is under way; callers that come meanwhile wait their turn here.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// How long after the budget the host waits for the worker's own report before it kills the process.
    static let grace = Duration.seconds(2)
    /// How long loading may take beyond the budget: starting `node` comes first.
    static let startGrace = Duration.seconds(10)

    /// A host for the worker that `configuration` names; nothing runs until ``start()``.
    public init(configuration: ServiceWorkerConfiguration) {
        self.configuration = configuration
    }

    deinit {
        process?.terminate()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Whether an event (or the start) is under way; callers that come meanwhile wait their turn.
    public var isHandlingEvent: Bool { busy }

    /// Whether a `node` process runs the worker now.
    public var isRunning: Bool { process.map { !$0.hasEnded } ?? false }

    /// Loads the script and runs `install`, then `activate`; the outcome holds the three (named `start`). When the
    /// script fails to load, its error is the outcome's and every later event answers with it. A worker already
    /// running is replaced by the new one.
    public func start() async -> ServiceWorkerOutcome {
        await serially { await self.launchAndInstall() }
    }

    private func launchAndInstall() async -> ServiceWorkerOutcome {
        var outcome = await launch()
        outcome.event = "start"
        guard isRunning, outcome.errors.allSatisfy({ $0.kind != .load && $0.kind != .timedOut }) else { return outcome }
        outcome.append(await dispatch("install") { _ in })
        outcome.append(await dispatch("activate") { _ in })
        outcome.event = "start"
        return outcome
    }

    /// A push message: the `push` event with `data` (`nil`: a push without data, `event.data` is `null`).
    public func push(data: [UInt8]?) async -> ServiceWorkerOutcome {
        await serially {
            await self.dispatch("push") { writer in
                if let data {
                    writer.member("data", Data(data).base64EncodedString())
                } else {
                    writer.key("data")
                    writer.null()
                }
            }
        }
    }

    /// The user clicked `notification` (or its button `action`; empty for the notification itself).
    public func notificationClick(_ notification: WebNotification, action: String = "") async -> ServiceWorkerOutcome {
        await serially {
            await self.dispatch("notificationclick") { writer in
                writer.key("notification")
                notification.write(to: &writer)
                writer.member("action", action)
            }
        }
    }

    /// The user dismissed `notification`: it leaves ``displayed``, and the worker gets `notificationclose`.
    public func notificationClose(_ notification: WebNotification) async -> ServiceWorkerOutcome {
        await serially {
            self.displayed.removeAll { $0.id == notification.id }
            return await self.dispatch("notificationclose") { writer in
                writer.key("notification")
                notification.write(to: &writer)
            }
        }
    }

    /// Ends the worker's process at once (SIGKILL: the scope keeps nothing to save). An event under way ends with an
    /// `exited` error; a later event starts the worker again.
    public func stop() async {
        process?.terminate()
        process = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
        directory = nil
    }

    /// Runs `body` when no other event runs: the scope takes one event at a time, and so does the host, in the order
    /// the callers came (a caller may overtake one being woken; none waits forever).
    private func serially<Result: Sendable>(_ body: () async -> Result) async -> Result {
        while busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        return await body()
    }
}
