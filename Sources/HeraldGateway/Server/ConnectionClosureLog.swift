import Logging
import NIOCore
import Synchronization

/// Logs a warning for each provider connection Herald closes for a protocol error or a limit, at most
/// `linesPerSecond` lines in any one second (docs/provider-api.md, "Limits").
///
/// Why a bound: the closures an attacker causes cost it one connection each, and a line each would let it fill the
/// disk. Lines past the bound are counted, not written; the next line written after them is preceded by one line
/// that says how many were left out. `/metrics` counts every closure whatever the log says.
final class ConnectionClosureLog: Sendable {
    /// Why Herald closed a connection.
    struct Closure: Sendable, Equatable {
        /// What went wrong: an HTTP/2 error code's name (`PROTOCOL_ERROR`), or Herald's words for the rest.
        var error: String
        /// The limit that tripped, with its value (`maximumContinuationFrames=64`); nil for a plain protocol error.
        var limit: String?
    }

    private struct State {
        /// The second (milliseconds / 1000) the counts are for.
        var second: Int64 = .min
        var written = 0
        /// Lines left out since the last one written.
        var dropped = 0
    }

    private let logger: Logger
    private let linesPerSecond: Int
    private let nowMilliseconds: @Sendable () -> Int64
    private let state = Mutex(State())

    /// - Parameters:
    ///   - linesPerSecond: the most warning lines in one second; 0 logs none (and counts none as dropped).
    ///   - nowMilliseconds: the clock the seconds are counted on.
    init(logger: Logger, linesPerSecond: Int, nowMilliseconds: @escaping @Sendable () -> Int64) {
        self.logger = logger
        self.linesPerSecond = linesPerSecond
        self.nowMilliseconds = nowMilliseconds
    }

    /// Logs one closure, unless this second's lines are spent.
    func record(_ closure: Closure, peer: SocketAddress?) {
        guard linesPerSecond > 0 else { return }
        let second = nowMilliseconds() / 1000
        let (write, dropped) = state.withLock { state -> (Bool, Int) in
            // Only forward: event loops read the clock before they take the lock, so one may come with the second
            // before; starting that second's count again let through 18 lines in one second (a test saw it).
            if second > state.second {
                state.second = second
                state.written = 0
            }
            guard state.written < linesPerSecond else {
                state.dropped += 1
                return (false, 0)
            }
            state.written += 1
            defer { state.dropped = 0 }
            return (true, state.dropped)
        }
        guard write else { return }
        if dropped > 0 {
            logger.warning(
                "\(dropped) provider connection closures not logged (at most \(linesPerSecond) lines a second)",
                metadata: ["gateway.unlogged_closures": "\(dropped)"]
            )
        }
        var metadata: Logger.Metadata = ["gateway.peer": "\(Self.describe(peer))", "gateway.error": "\(closure.error)"]
        if let limit = closure.limit { metadata["gateway.limit"] = "\(limit)" }
        logger.warning("provider connection closed: \(closure.error)", metadata: metadata)
    }

    /// `127.0.0.1:50412`, `[::1]:50412`, or `unknown`.
    static func describe(_ peer: SocketAddress?) -> String {
        guard let peer, let ip = peer.ipAddress else { return "unknown" }
        let host = peer.protocol == .inet6 ? "[\(ip)]" : ip
        return peer.port.map { "\(host):\($0)" } ?? host
    }
}
