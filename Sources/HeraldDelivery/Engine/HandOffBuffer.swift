import Synchronization

/// The sequences handed off to a cluster node and not yet read, gathered so that one query reads every hand-off that
/// arrived while the previous read ran (docs/cluster.md).
///
/// Why: a node receives a `NOTIFY` per group-commit batch of every other node; reading each on its own made the reads a
/// queue of their own under load, and the sweep (every 250 ms) delivered what they had not reached yet.
final class HandOffBuffer: Sendable {
    private struct State {
        var sequences: [Int64] = []
        var finished = false
        var parked: CheckedContinuation<[Int64]?, Never>?
        /// Those waiting in ``readerWaits()`` for the reader to park.
        var parkWatchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Adds handed-off sequences; wakes the reader when it waits.
    func append(_ sequences: [Int64]) {
        let wake = state.withLock { state -> (CheckedContinuation<[Int64]?, Never>, [Int64])? in
            state.sequences += sequences
            guard let parked = state.parked else { return nil }
            state.parked = nil
            defer { state.sequences = [] }
            return (parked, state.sequences)
        }
        if let (reader, batch) = wake { reader.resume(returning: batch) }
    }

    /// No more hand-offs: the reader gets what is left, then `nil`.
    func finish() {
        let parked = state.withLock { state in
            state.finished = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume(returning: nil)
    }

    /// Every sequence gathered since the last call, waiting while there is none; `nil` once finished and empty.
    func takeAll() async -> [Int64]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Int64]?, Never>) in
            let (ready, watchers) = state.withLock { state -> ([Int64]??, [CheckedContinuation<Void, Never>]) in
                if !state.sequences.isEmpty {
                    defer { state.sequences = [] }
                    return (.some(state.sequences), [])
                }
                if state.finished { return (.some(nil), []) }
                state.parked = continuation
                defer { state.parkWatchers = [] }
                return (.none, state.parkWatchers)
            }
            if let ready { continuation.resume(returning: ready) }
            for watcher in watchers { watcher.resume() }
        }
    }

    /// Returns once the reader waits in ``takeAll()`` with nothing gathered: the handshake for a test that appends
    /// for a waiting reader (instead of sleeping until it probably waits).
    func readerWaits() async {
        await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                if state.parked == nil { state.parkWatchers.append(watcher) }
                return state.parked != nil
            }
            if waiting { watcher.resume() }
        }
    }
}
