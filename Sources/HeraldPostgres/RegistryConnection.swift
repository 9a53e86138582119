import Dispatch
import HeraldStore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection, on an event loop of its own, for the registry's synchronous hot-path queries.
///
/// Why not the pool: ``PostgresStore/lookup(_:)`` is called on the gateway's event loops and must answer before it
/// returns (a token registered on another node a moment ago must be found, as SQLite's file read finds it). It blocks
/// its caller until the answer or the deadline, so the connection must not live on an event loop a caller may be on:
/// it has a thread of its own. Queries are serialised (they are rare: misses and one refresh per interval).
final class RegistryConnection: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let configuration: PostgresConnection.Configuration
    private let timeout: Duration
    private let logger: Logger
    /// The open connection, or `nil` before the first query and after a failure. Held while a query runs.
    private let connection = NIOLockedValueBox<PostgresConnection?>(nil)
    private let nextID = NIOLockedValueBox(0)
    /// Until when (uptime nanoseconds) a failed query makes the next ones fail at once, without trying: while the
    /// database is away, a lookup on the gateway's event loop must not wait out the deadline again and again.
    private let failingUntil = NIOLockedValueBox<UInt64>(0)
    /// How long a failure is remembered.
    static let failureMemory: UInt64 = 1_000_000_000

    /// The error of a query that took longer than the deadline.
    struct TimedOut: Error {}

    init(configuration: PostgresConnection.Configuration, timeout: Duration, logger: Logger) {
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.configuration = configuration
        self.timeout = timeout
        self.logger = logger
    }

    /// The rows of `query`; blocks the calling thread until they arrive or the deadline passes.
    ///
    /// Errors are ``StoreError``s; after one, the connection is dropped and the next query opens a new one.
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        if DispatchTime.now().uptimeNanoseconds < failingUntil.withLockedValue({ $0 }) {
            throw StoreError.unavailable.with(detail: "the database did not answer a moment ago")
        }
        let loop = group.next()
        return try connection.withLockedValue { current in
            do {
                let open: PostgresConnection
                if let current, !current.isClosed {
                    open = current
                } else {
                    let id = nextID.withLockedValue { value in
                        value += 1
                        return value
                    }
                    let connecting = PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger)
                    do {
                        open = try deadline(connecting, on: loop)
                    } catch {
                        // Past the deadline the connection may still open: close it then, nobody will use it.
                        connecting.whenSuccess { late in late.close().whenComplete { _ in } }
                        throw error
                    }
                    current = open
                }
                let result = try deadline(open.query(query, logger: logger), on: loop)
                return result.rows
            } catch {
                if let current { current.close().whenComplete { _ in } }
                current = nil
                failingUntil.withLockedValue { $0 = DispatchTime.now().uptimeNanoseconds + Self.failureMemory }
                if error is TimedOut { throw StoreError.unavailable.with(detail: "the registry query took longer than \(timeout)") }
                throw PostgresStore.storeError(error)
            }
        }
    }

    /// Waits for `future` on the calling thread, failing with ``TimedOut`` after the timeout.
    ///
    /// With a semaphore, not `EventLoopFuture.wait()`: SwiftNIO refuses `wait()` on any event-loop thread, and the
    /// gateway's lookups run on one (the future completes on this connection's own thread, so nothing deadlocks).
    private func deadline<T: Sendable>(_ future: EventLoopFuture<T>, on loop: any EventLoop) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success, let result = outcome.withLockedValue({ $0 }) else {
            throw TimedOut()
        }
        return try result.get()
    }

    /// A store dropped without ``close()``: the connection is closed anyway (kept alive until it is), and the thread
    /// stops.
    deinit {
        if let open = connection.withLockedValue({ $0 }), !open.isClosed {
            open.close().whenComplete { _ in withExtendedLifetime(open) {} }
        }
        group.shutdownGracefully { _ in }
    }

    /// Closes the connection and stops the thread.
    func close() async {
        let open = connection.withLockedValue { current in
            defer { current = nil }
            return current
        }
        if let open { try? await open.close() }
        // deinit shuts the group down; calling it twice is an error, so it is left to deinit.
    }
}
