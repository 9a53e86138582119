import Logging
import Synchronization

/// Log entries kept in memory, for tests that read what a component logged: hand ``logger`` to it.
public final class CapturedLog: Sendable {
    /// One message as logged, with the logger's and the call's metadata as text.
    public struct Entry: Equatable, Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]

        public init(level: Logger.Level, message: String, metadata: [String: String]) {
            self.level = level
            self.message = message
            self.metadata = metadata
        }
    }

    private let storage = Mutex<[Entry]>([])

    public init() {}

    /// What was logged so far, oldest first.
    public var entries: [Entry] { storage.withLock { $0 } }

    /// The messages so far, oldest first.
    public var messages: [String] { entries.map(\.message) }

    /// Forgets what was logged so far.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// A logger at `trace` that keeps every entry here.
    public var logger: Logger {
        Logger(label: "test.captured") { _ in Handler(log: self) }
    }

    fileprivate func append(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            log.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
