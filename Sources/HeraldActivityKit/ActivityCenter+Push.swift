import Foundation
import HeraldUserNotifications

/// Where a `liveactivity` push was addressed.
public enum ActivityPushTarget: Hashable, Sendable {
    /// An activity's push token.
    case activityToken(Data)
    /// A type's push-to-start token.
    case pushToStartToken(Data)
    /// A broadcast channel the device's activities may subscribe to.
    case channel(String)
}

extension ActivityCenter {
    /// Applies a `liveactivity` push (its whole payload) and returns what happened; a push that cannot apply is one
    /// ``ActivityEvent/dropped(reason:detail:)`` with a stable reason (docs/live-activities.md, "Pushes").
    @discardableResult
    public func receive(payload: Data, target: ActivityPushTarget, priority: Int = 10) -> [ActivityEvent] {
        evaluate()
        let events: [ActivityEvent]
        switch LiveActivityPayload.parse(payload) {
        case .failure(let drop):
            events = [drop.event]
        case .success(let push):
            events = apply(push, target: target, priority: priority)
        }
        publish(events)
        return events
    }

    private func apply(_ push: LiveActivityPayload, target: ActivityPushTarget, priority: Int) -> [ActivityEvent] {
        switch target {
        case .pushToStartToken(let token):
            guard push.event == .start else {
                return [.dropped(reason: "not-start", detail: "a push-to-start token takes only event start, not \(push.event.rawValue)")]
            }
            return start(push, pushToStartToken: token)
        case .activityToken(let token):
            guard push.event != .start else {
                return [.dropped(reason: "start-needs-push-to-start-token", detail: "event start goes to a push-to-start token")]
            }
            let id = state.withLock { state in state.records.values.first { $0.pushToken == token }?.id }
            guard let id else { return [.dropped(reason: "unknown-activity-token", detail: "no activity has this push token")] }
            return change(id, with: push, priority: priority)
        case .channel(let channelID):
            guard push.event != .start else {
                return [.dropped(reason: "start-on-channel", detail: "a channel takes update and end events only")]
            }
            let ids = state.withLock { state in state.order.filter { state.records[$0]?.channelID == channelID && state.records[$0]?.isLive == true }
            }
            return ids.flatMap { change($0, with: push, priority: priority) }
        }
    }

    /// `event: update` or `end` for one activity.
    private func change(_ id: String, with push: LiveActivityPayload, priority: Int) -> [ActivityEvent] {
        let now = clock.now
        let budget = configuration.supportsFrequentUpdates ? configuration.frequentHighPriorityBudget : configuration.highPriorityBudget
        let decodes = state.withLock { state in state.records[id].flatMap { state.types[$0.typeName]?.decodesContentState } }
        if let contentState = push.contentState, let decodes, !decodes(contentState) {
            return [.dropped(reason: "undecodable-content-state", detail: "content-state does not decode into the app's ContentState (\(id))")]
        }
        return state.withLock { state -> [ActivityEvent] in
            guard var record = state.records[id] else { return [] }
            guard record.isLive else {
                return [.dropped(reason: "activity-ended", detail: "activity \(id) is \(record.state.rawValue)")]
            }
            // Why: the timestamp orders updates that may arrive out of order; an older one must not overwrite a newer.
            guard push.timestamp >= record.contentTimestamp else {
                return [.dropped(reason: "older-timestamp", detail: "timestamp is older than the content shown (\(id))")]
            }
            var events: [ActivityEvent] = []
            switch push.event {
            case .update:
                guard let contentState = push.contentState else {
                    return [.dropped(reason: "missing-content-state", detail: "an update needs content-state")]
                }
                let admitted = priority < 10 || record.admitHighPriority(now: now, limit: budget.limit, window: budget.window)
                let changes = record.apply(
                    contentStateJSON: contentState,
                    staleDate: push.staleDate,
                    relevanceScore: push.relevanceScore,
                    timestamp: push.timestamp,
                    now: now
                )
                events = [.updated(id: id, alert: admitted ? push.alert : nil, throttled: !admitted)] + changes
            case .end:
                if let contentState = push.contentState {
                    record.contentStateJSON = contentState
                    record.staleDate = push.staleDate
                    if let relevanceScore = push.relevanceScore { record.relevanceScore = relevanceScore }
                    record.contentTimestamp = push.timestamp
                    events.append(.updated(id: id, alert: push.alert, throttled: false))
                }
                let policy: ActivityUIDismissalPolicy = push.dismissalDate.map { .after($0) } ?? .default
                events += record.end(dismissAt: dismissalDate(policy: policy, now: now), now: now)
            case .start:
                return []
            }
            state.records[id] = record
            return events
        }
    }

    /// `event: start` through a push-to-start token.
    private func start(_ push: LiveActivityPayload, pushToStartToken token: Data) -> [ActivityEvent] {
        let now = clock.now
        guard configuration.activitiesEnabled else {
            return [.dropped(reason: "activities-disabled", detail: "the person turned Live Activities off for the app")]
        }
        let (owner, registration) = state.withLock { state in
            let owner = state.pushToStartTokens.first { $0.value == token }?.key
            return (owner, owner.flatMap { state.types[$0] })
        }
        guard let owner, let registration else {
            return [.dropped(reason: "unknown-push-to-start-token", detail: "no activity type has this push-to-start token")]
        }
        for (field, present) in [
            ("attributes-type", push.attributesType != nil), ("attributes", push.attributes != nil),
            ("content-state", push.contentState != nil), ("alert", push.alert != nil),
        ] where !present {
            return [.dropped(reason: "missing-\(field)", detail: "event start needs \(field)")]
        }
        guard let typeName = push.attributesType, typeName == owner else {
            return [.dropped(reason: "attributes-type-mismatch", detail: "attributes-type \(push.attributesType ?? "") is not \(owner)")]
        }
        guard let attributes = push.attributes, registration.decodesAttributes(attributes) else {
            return [.dropped(reason: "undecodable-attributes", detail: "attributes do not decode into \(typeName)")]
        }
        guard let contentState = push.contentState, registration.decodesContentState(contentState) else {
            return [.dropped(reason: "undecodable-content-state", detail: "content-state does not decode into \(typeName).ContentState")]
        }
        guard attributes.count + contentState.count <= configuration.maximumDataSize else {
            return [.dropped(reason: "too-large", detail: "attributes and content-state are over \(configuration.maximumDataSize) bytes")]
        }
        if push.inputPushChannel != nil, !configuration.supportsChannels {
            return [.dropped(reason: "channels-unsupported", detail: "input-push-channel on a device without channels")]
        }
        return state.withLock { state -> [ActivityEvent] in
            guard Self.liveCount(state) < configuration.maximumActivities else {
                return [.dropped(reason: "maximum-activities", detail: "the app already runs \(configuration.maximumActivities) activities")]
            }
            let id = UUID().uuidString
            // Why: Apple's text for push-to-start: "While the system starts the new Live Activity and wakes up your
            // app, you receive the push token you use for updates" (Starting and updating Live Activities with
            // ActivityKit push notifications) — with or without `input-push-token`; with `input-push-channel` the
            // activity subscribes to that channel instead.
            let activityToken = push.inputPushChannel == nil ? Self.newToken() : nil
            var record = ActivityRecord(
                id: id,
                typeName: typeName,
                attributesJSON: attributes,
                contentStateJSON: contentState,
                staleDate: push.staleDate,
                relevanceScore: push.relevanceScore ?? 0,
                state: .active,
                pushToken: activityToken,
                channelID: push.inputPushChannel,
                startedAt: now,
                contentTimestamp: push.timestamp
            )
            if let staleDate = push.staleDate, staleDate <= now { record.state = .stale }
            state.records[id] = record
            state.order.append(id)
            var events: [ActivityEvent] = [.started(id: id, typeName: typeName, byPush: true), .updated(id: id, alert: push.alert, throttled: false)]
            if let activityToken { events.append(.pushTokenChanged(id: id, token: activityToken)) }
            return events
        }
    }
}
