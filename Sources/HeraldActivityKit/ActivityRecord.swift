import Foundation

/// One activity as the center keeps it: its halves as JSON (so one center holds activities of every type) and the
/// rules' bookkeeping. Pure: every change takes the time, no clock is read here.
struct ActivityRecord: Sendable {
    let id: String
    let typeName: String
    let attributesJSON: Data
    var contentStateJSON: Data
    var staleDate: Date?
    var relevanceScore: Double
    var state: ActivityState
    var pushToken: Data?
    let channelID: String?
    var startedAt: Date
    /// The time of the current content: the app's update time, or the push's `timestamp`.
    var contentTimestamp: Date
    var dismissAt: Date?
    /// Times of the priority-10 pushes applied within the budget's window.
    var highPriorityPushes: [Date] = []
    /// The alert a scheduled activity shows when it starts.
    var startAlert: AlertConfiguration?

    /// Whether it is on screen (active, stale or ended and not yet dismissed).
    var isVisible: Bool { state != .dismissed && state != .pending }
    /// Whether it still takes updates.
    var isLive: Bool { state == .active || state == .stale }

    /// Applies new content; the state follows the stale date.
    mutating func apply(contentStateJSON: Data, staleDate: Date?, relevanceScore: Double?, timestamp: Date, now: Date) -> [ActivityEvent] {
        self.contentStateJSON = contentStateJSON
        self.staleDate = staleDate
        if let relevanceScore { self.relevanceScore = relevanceScore }
        contentTimestamp = timestamp
        let next: ActivityState = staleDate.map { $0 <= now } == true ? .stale : .active
        return move(to: next)
    }

    /// Ends it: it stays on screen until `dismissAt` (`now` or earlier: dismissed at once).
    mutating func end(dismissAt: Date, now: Date) -> [ActivityEvent] {
        guard isLive else { return [] }
        self.dismissAt = dismissAt
        var events = move(to: .ended)
        if dismissAt <= now { events += move(to: .dismissed) }
        return events
    }

    /// The changes time alone makes: stale at the stale date, ended after the longest run, dismissed at its time.
    mutating func evaluate(now: Date, maximumDuration: TimeInterval, endedVisibility: TimeInterval) -> [ActivityEvent] {
        var events: [ActivityEvent] = []
        if state == .pending, now >= startedAt {
            // A scheduled activity starts at its start date (iOS 26), with its alert.
            events += move(to: .active)
            events.append(.updated(id: id, alert: startAlert, throttled: false))
        }
        if isLive, now >= startedAt.addingTimeInterval(maximumDuration) {
            // Why: "A Live Activity can be active for up to eight hours … After this limit, the system automatically
            // ends the Live Activity" and keeps it on the lock screen for up to four more hours.
            events += end(dismissAt: startedAt.addingTimeInterval(maximumDuration + endedVisibility), now: now)
        }
        if state == .active, let staleDate, staleDate <= now { events += move(to: .stale) }
        if state == .ended, let dismissAt, dismissAt <= now { events += move(to: .dismissed) }
        return events
    }

    /// Counts a priority-10 push against the budget; `false` when the window is already full.
    mutating func admitHighPriority(now: Date, limit: Int, window: TimeInterval) -> Bool {
        highPriorityPushes.removeAll { $0 <= now.addingTimeInterval(-window) }
        guard highPriorityPushes.count < limit else { return false }
        highPriorityPushes.append(now)
        return true
    }

    private mutating func move(to next: ActivityState) -> [ActivityEvent] {
        guard next != state else { return [] }
        state = next
        return [.stateChanged(id: id, state: next)]
    }
}
