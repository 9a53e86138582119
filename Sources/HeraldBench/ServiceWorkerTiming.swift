import Foundation
import HeraldServiceWorker

/// The service worker's own cost, apart from the push service's: a site's `sw.js` in a ``ServiceWorkerHost`` (under
/// Node, with Herald's scope), started once, then given pushes one at a time, each of which must show a notification.
///
/// Two times per push: the worker's own, as Node measured it from the event's dispatch until every `waitUntil` promise
/// settled (``ServiceWorkerOutcome/workerDuration``), and the host's round trip, which adds the pipe both ways and the
/// host's reading of the outcome.
enum ServiceWorkerTiming {
    /// What one timing gave.
    struct Record: Codable, Sendable, Hashable {
        var kind = "service-worker"
        var run: Int
        var script: String
        var pushes: Int
        /// Starting the worker (Node's start, the script's load, `install`, `activate`), as the host measured it.
        var startMilliseconds: Double
        /// Per push, Node's own time.
        var worker: Percentiles
        /// Per push, the host's round trip.
        var roundTrip: Percentiles
    }

    /// Starts the worker at `scriptPath`, sends `pushes` pushes of the example's JSON, and stops it.
    ///
    /// - Throws: ``BenchFailure`` when the worker does not start, or a push shows no notification or reports an error:
    ///   a worker that fails measures nothing.
    static func measure(run: Int, scriptPath: String, node: String?, pushes: Int) async throws -> Record {
        guard FileManager.default.fileExists(atPath: scriptPath) else { throw BenchFailure("no service worker at \(scriptPath)") }
        var configuration = ServiceWorkerConfiguration(scriptPath: scriptPath, origin: BenchWebApp.origin)
        if let node { configuration.node = NodeExecutable(path: node) }
        let host = ServiceWorkerHost(configuration: configuration)
        let started = await host.start()
        var worker: [UInt64] = []
        var roundTrip: [UInt64] = []
        do {
            if let error = started.error { throw BenchFailure("the service worker \(scriptPath) did not start: \(error)") }
            for index in 0..<max(1, pushes) {
                let outcome = await host.push(data: Array(pushJSON(index).utf8))
                if let error = outcome.error { throw BenchFailure("push \(index): the service worker failed: \(error)") }
                guard outcome.shown.count == 1, let own = outcome.workerDuration else {
                    throw BenchFailure("push \(index): the service worker showed \(outcome.shown.count) notifications, not 1")
                }
                worker.append(nanoseconds(own))
                roundTrip.append(nanoseconds(outcome.duration))
            }
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
        return Record(
            run: run,
            script: scriptPath,
            pushes: worker.count,
            startMilliseconds: Double(nanoseconds(started.duration)) / 1e6,
            worker: Percentiles(nanoseconds: &worker),
            roundTrip: Percentiles(nanoseconds: &roundTrip)
        )
    }

    /// The push Examples/WebPush/sw.js reads: `{"title":…,"body":…,"url":…,"tag":…}`.
    static func pushJSON(_ index: Int) -> String {
        #"{"title":"Order \#(index) shipped","body":"Arrives Tuesday","url":"/orders/\#(index)","tag":"order-\#(index)"}"#
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
