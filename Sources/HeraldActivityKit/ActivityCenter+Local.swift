import Foundation

extension ActivityCenter {
    /// Starts an activity for the app's own request (``Activity/request(attributes:content:pushType:)``).
    func start(
        typeName: String,
        attributesJSON: Data,
        contentStateJSON: Data,
        staleDate: Date?,
        relevanceScore: Double,
        pushType: PushType?,
        scheduled: (startDate: Date, alert: AlertConfiguration)? = nil
    ) throws(ActivityAuthorizationError) -> String {
        guard configuration.activitiesEnabled else { throw .denied }
        guard attributesJSON.count + contentStateJSON.count <= configuration.maximumDataSize else { throw .attributesTooLarge }
        if pushType?.channelID != nil, !configuration.supportsChannels { throw .unsupported }
        evaluate()
        let now = clock.now
        let result = state.withLock { state -> Result<(String, [ActivityEvent]), ActivityAuthorizationError> in
            guard Self.liveCount(state) < configuration.maximumActivities else { return .failure(.targetMaximumExceeded) }
            let id = UUID().uuidString
            let token = pushType == .token ? Self.newToken() : nil
            var record = ActivityRecord(
                id: id,
                typeName: typeName,
                attributesJSON: attributesJSON,
                contentStateJSON: contentStateJSON,
                staleDate: staleDate,
                relevanceScore: relevanceScore,
                state: .active,
                pushToken: token,
                channelID: pushType?.channelID,
                startedAt: now,
                contentTimestamp: now
            )
            if let staleDate, staleDate <= now { record.state = .stale }
            if let scheduled, scheduled.startDate > now {
                record.state = .pending
                record.startedAt = scheduled.startDate
                record.startAlert = scheduled.alert
            }
            state.records[id] = record
            state.order.append(id)
            var events: [ActivityEvent] = [.started(id: id, typeName: typeName, byPush: false)]
            if let token { events.append(.pushTokenChanged(id: id, token: token)) }
            return .success((id, events))
        }
        switch result {
        case .failure(let error):
            throw error
        case .success(let (id, events)):
            publish(events)
            return id
        }
    }

    /// The app's own update: ignored once the activity has ended, or when `timestamp` is older than its content
    /// (Apple: "If this is older than a previous update or push payload, the system ignores this update").
    func update(id: String, contentStateJSON: Data, staleDate: Date?, relevanceScore: Double, alert: AlertConfiguration?, timestamp: Date? = nil) {
        let now = clock.now
        let events = state.withLock { state -> [ActivityEvent] in
            guard var record = state.records[id], record.isLive else { return [] }
            if let timestamp, timestamp < record.contentTimestamp { return [] }
            var events = record.apply(
                contentStateJSON: contentStateJSON,
                staleDate: staleDate,
                relevanceScore: relevanceScore,
                timestamp: timestamp ?? now,
                now: now
            )
            events.insert(.updated(id: id, alert: alert, throttled: false), at: 0)
            state.records[id] = record
            return events
        }
        publish(events)
    }

    /// The app's own end, with optional final content.
    func end(id: String, contentStateJSON: Data?, staleDate: Date?, relevanceScore: Double?, dismissalPolicy: ActivityUIDismissalPolicy) {
        let now = clock.now
        let dismissAt = dismissalDate(policy: dismissalPolicy, now: now)
        let events = state.withLock { state -> [ActivityEvent] in
            guard var record = state.records[id], record.isLive else { return [] }
            var events: [ActivityEvent] = []
            if let contentStateJSON {
                record.contentStateJSON = contentStateJSON
                record.staleDate = staleDate
                if let relevanceScore { record.relevanceScore = relevanceScore }
                record.contentTimestamp = now
                events.append(.updated(id: id, alert: nil, throttled: false))
            }
            events += record.end(dismissAt: dismissAt, now: now)
            state.records[id] = record
            return events
        }
        publish(events)
    }

    /// When an ended activity leaves the screen: by default after ``Configuration/endedVisibility``; a date is kept
    /// within it; a date in the past is now.
    func dismissalDate(policy: ActivityUIDismissalPolicy, now: Date) -> Date {
        let latest = now.addingTimeInterval(configuration.endedVisibility)
        switch policy.kind {
        case .byDefault: return latest
        case .immediate: return now
        case .after(let date): return min(max(date, now), latest)
        }
    }

    /// Running activities count against the limit: active and stale ones (an ended one on screen does not).
    static func liveCount(_ state: State) -> Int {
        state.records.values.filter(\.isLive).count
    }

    /// The ids of the visible activities of a type, in start order.
    func visibleIDs(typeName: String) -> [String] {
        evaluate()
        return state.withLock { state in
            state.order.filter { state.records[$0]?.typeName == typeName && state.records[$0]?.isVisible == true }
        }
    }

    func record(_ id: String) -> ActivityRecord? {
        state.withLock { $0.records[id] }
    }
}
