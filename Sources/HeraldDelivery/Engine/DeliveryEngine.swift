import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Store-and-forward delivery: takes accepted notifications and sends them to connected devices with
/// APNs semantics (docs/delivery.md).
///
/// Inputs are plain methods callable from any thread, including a SwiftNIO event loop: they never block
/// and start no task; they queue an event that ``run()`` processes in order.
public final class DeliveryEngine: Service, Sendable {
    /// Settings.
    public struct Configuration: Sendable {
        /// The store-and-forward rules.
        public var policy = DeliveryPolicy()
        /// How often expirations and held low-priority notifications are checked.
        public var tickInterval: Duration = .milliseconds(100)
        /// The most changes written in one transaction.
        public var maximumJournalBatch = 2000

        /// The default configuration.
        public init() {}
    }

    enum Event: Sendable {
        case accepted(AcceptedNotification)
        case sessionOpened(any DeviceSession, tokens: [DeviceToken])
        case tokenRegistered(DeviceToken, session: DeviceSessionID)
        case tokenUnregistered(DeviceToken, atMilliseconds: Int64)
        case sessionClosed(DeviceSessionID)
        case acknowledged(NotificationID, session: DeviceSessionID)
        case reported(DeviceReport, session: DeviceSessionID)
    }

    let configuration: Configuration
    let store: any DeliveryStore
    let clock: any WallClock
    let logger: Logger
    let events: AsyncStream<Event>
    let eventInput: AsyncStream<Event>.Continuation

    /// Creates an engine; nothing is read or sent until ``restore()`` and ``run()``.
    public init(store: any DeliveryStore, configuration: Configuration = .init(), clock: any WallClock = SystemWallClock(), logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        (events, eventInput) = AsyncStream.makeStream(of: Event.self)
    }

    /// A notification was committed: deliver it (call after the store said it is durable).
    public func accepted(_ notification: AcceptedNotification) {
        eventInput.yield(.accepted(notification))
    }

    /// A device connected and authenticated; `tokens` are its active tokens.
    public func sessionOpened(_ session: any DeviceSession, tokens: [DeviceToken]) {
        eventInput.yield(.sessionOpened(session, tokens: tokens))
    }

    /// An app on a connected device registered (or re-registered) and has this active token.
    public func tokenRegistered(_ token: DeviceToken, session: DeviceSessionID) {
        eventInput.yield(.tokenRegistered(token, session: session))
    }

    /// A token was unregistered: what waits for it is discarded.
    public func tokenUnregistered(_ token: DeviceToken, atMilliseconds: Int64) {
        eventInput.yield(.tokenUnregistered(token, atMilliseconds: atMilliseconds))
    }

    /// A device's connection closed: what it did not acknowledge is kept for its next connection.
    public func sessionClosed(_ session: DeviceSessionID) {
        eventInput.yield(.sessionClosed(session))
    }

    /// The device acknowledged a notification sent on this session.
    public func acknowledged(_ id: NotificationID, session: DeviceSessionID) {
        eventInput.yield(.acknowledged(id, session: session))
    }

    /// The device reported what became of a notification.
    public func reported(_ report: DeviceReport, session: DeviceSessionID) {
        eventInput.yield(.reported(report, session: session))
    }

    /// Processes events until graceful shutdown.
    public func run() async throws {
        fatalError("skeleton")
    }
}
