/// What a service worker did while it handled one event, as values: what it showed, closed, opened and set, what it
/// logged, what went wrong, and how long it took.
///
/// A push after which ``shown`` is empty is what Safari counts against the subscription; the caller applies that rule.
public struct ServiceWorkerOutcome: Sendable, Hashable {
    /// The event: `push`, `notificationclick`, `notificationclose`, or `start` for the script's load with `install`
    /// and `activate`.
    public var event: String
    /// How many listeners (`addEventListener` and the `on…` property) ran; 0 when the worker has none for the event.
    public var listeners = 0
    /// The notifications shown, in order; one with the tag of one on screen replaced it.
    public var shown: [WebNotification] = []
    /// The ids of the notifications the worker closed.
    public var closed: [String] = []
    /// The absolute URLs of the windows opened (`clients.openWindow`, `WindowClient.navigate`).
    public var openedWindows: [String] = []
    /// The badge changes, in order.
    public var badgeChanges: [AppBadgeChange] = []
    /// The worker's `console.*` lines, in order.
    public var console: [ServiceWorkerConsoleLine] = []
    /// What went wrong, in order; empty when nothing did.
    public var errors: [ServiceWorkerError] = []
    /// Lines from the scope the host could not read, each with why (reported, then skipped).
    public var unreadableLines: [String] = []
    /// The time from sending the event to its end, as the host measured it.
    public var duration: Duration = .zero
    /// The worker's own time for the event, as Node measured it; `nil` when the event did not end in the worker.
    public var workerDuration: Duration?

    /// An empty outcome for an event.
    public init(event: String) {
        self.event = event
    }

    /// The first error, if any.
    public var error: ServiceWorkerError? { errors.first }

    /// The badge as the event left it: its last change, if any.
    public var badge: AppBadgeChange? { badgeChanges.last }

    /// Two outcomes as one (the start's load, install and activate): lists joined, durations added.
    mutating func append(_ other: ServiceWorkerOutcome) {
        listeners += other.listeners
        shown += other.shown
        closed += other.closed
        openedWindows += other.openedWindows
        badgeChanges += other.badgeChanges
        console += other.console
        errors += other.errors
        unreadableLines += other.unreadableLines
        duration += other.duration
        if let worker = other.workerDuration { workerDuration = (workerDuration ?? .zero) + worker }
    }
}
