import HeraldCore

/// What went wrong while a service worker handled an event: the script, the scope's rules, or the process.
///
/// None of these is fatal to the host: the event ends with the error in its ``ServiceWorkerOutcome``, and the next
/// event runs (in a new process when the old one is gone).
public struct ServiceWorkerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; the scope names it on the wire, so an unknown kind is data, not a crash.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        /// The kind's name on the wire.
        public let rawValue: String

        /// A kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The script threw (or did not parse) while it loaded; its listeners never run.
        public static let load = Kind(rawValue: "load")
        /// A listener threw while the event was dispatched.
        public static let handler = Kind(rawValue: "handler")
        /// A promise passed to `event.waitUntil` rejected.
        public static let rejected = Kind(rawValue: "rejected")
        /// A timer's callback threw.
        public static let uncaught = Kind(rawValue: "uncaught")
        /// The event was not done within the time budget.
        public static let timedOut = Kind(rawValue: "timed-out")
        /// The worker broke the line protocol's limits (a line too long, too many actions) or sent what it cannot
        /// read.
        public static let `protocol` = Kind(rawValue: "protocol")
        /// No `node` to run the worker with.
        public static let nodeMissing = Kind(rawValue: "node-missing")
        /// The `node` process ended, or could not start.
        public static let exited = Kind(rawValue: "exited")
    }

    /// The kind of failure.
    public let kind: Kind
    /// What happened, in one line (a script error as `TypeError: …`).
    public let message: String

    /// An error of a kind.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// A line from the scope that could not be read, saying why in one line.
struct ServiceWorkerLineError: Error, Sendable, Hashable, JSONMemberError {
    var message: String

    func with(message: String) -> ServiceWorkerLineError { ServiceWorkerLineError(message: message) }
}

extension ServiceWorkerLineError {
    /// `bytes` read as one JSON object, or an error naming `what` was not one.
    static func object(_ bytes: [UInt8], what: String) throws(ServiceWorkerLineError) -> JSONObjectReader {
        do {
            return try JSONObjectReader(bytes)
        } catch {
            throw ServiceWorkerLineError(message: "\(what) is \(error)")
        }
    }
}
