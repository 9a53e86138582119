import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@testable import HeraldActivityKit

/// `liveactivity` pushes: update and end by activity token, start by push-to-start token, broadcast by channel,
/// and every reason a push is dropped.
@Suite("ActivityKit: liveactivity pushes", .tier(.unit))
struct ActivityPushTests {
    let clock = ManualNotificationClock()

    func payload(_ aps: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["aps": aps])
    }

    var now: Double { clock.now.timeIntervalSince1970 }

    /// A center with one token activity; its id and push token.
    func started(_ configure: (inout ActivityCenter.Configuration) -> Void = { _ in }) throws -> (ActivityCenter, Activity<DeliveryAttributes>, Data)
    {
        var configuration = ActivityCenter.Configuration()
        configure(&configuration)
        let center = ActivityCenter(clock: clock, configuration: configuration)
        let activity = try center.withCurrent {
            try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 42),
                content: ActivityContent(state: .init(status: "preparing", minutes: 20), staleDate: nil),
                pushType: .token
            )
        }
        return (center, activity, try #require(activity.pushToken))
    }

    func dropped(_ events: [ActivityEvent]) -> String? {
        guard events.count == 1, case .dropped(let reason, _) = events[0] else { return nil }
        return reason
    }

    @Test("an update by activity token changes the content, stale date and relevance; its alert shows")
    func update() throws {
        let (center, activity, token) = try started()
        let events = center.receive(
            payload: payload([
                "event": "update", "timestamp": now + 1, "content-state": ["status": "on the way", "minutes": 8],
                "stale-date": now + 600, "relevance-score": 75, "alert": ["title": "Order 42", "body": "On the way"],
            ]),
            target: .activityToken(token)
        )
        #expect(events == [.updated(id: activity.id, alert: AlertConfiguration(title: "Order 42", body: "On the way"), throttled: false)])
        let content = activity.content
        #expect(content.state == .init(status: "on the way", minutes: 8))
        #expect(content.staleDate == Date(timeIntervalSince1970: now + 600))
        #expect(content.relevanceScore == 75)
    }

    @Test("an update older than the content shown is ignored; the same time applies")
    func olderTimestamp() throws {
        let (center, activity, token) = try started()
        _ = center.receive(
            payload: payload(["event": "update", "timestamp": now + 10, "content-state": ["status": "a", "minutes": 1]]),
            target: .activityToken(token)
        )
        let older = center.receive(
            payload: payload(["event": "update", "timestamp": now + 5, "content-state": ["status": "b", "minutes": 2]]),
            target: .activityToken(token)
        )
        #expect(dropped(older) == "older-timestamp")
        #expect(activity.content.state.status == "a")
        let same = center.receive(
            payload: payload(["event": "update", "timestamp": now + 10, "content-state": ["status": "c", "minutes": 3]]),
            target: .activityToken(token)
        )
        #expect(dropped(same) == nil)
        #expect(activity.content.state.status == "c")
    }

    @Test("content-state that does not decode into ContentState is dropped, and the content stays")
    func undecodable() throws {
        let (center, activity, token) = try started()
        let events = center.receive(
            payload: payload(["event": "update", "timestamp": now, "content-state": ["status": 3]]),
            target: .activityToken(token)
        )
        #expect(dropped(events) == "undecodable-content-state")
        #expect(activity.content.state.status == "preparing")
        #expect(center.events.last == events.first)
    }

    @Test("the aps rules: no event, an unknown event, no timestamp, no content-state on update, an unknown token")
    func malformed() throws {
        let (center, _, token) = try started()
        #expect(dropped(center.receive(payload: Data("[]".utf8), target: .activityToken(token))) == "malformed-payload")
        #expect(dropped(center.receive(payload: payload(["timestamp": now]), target: .activityToken(token))) == "missing-event")
        #expect(dropped(center.receive(payload: payload(["event": "pause", "timestamp": now]), target: .activityToken(token))) == "unknown-event")
        #expect(dropped(center.receive(payload: payload(["event": "update"]), target: .activityToken(token))) == "missing-timestamp")
        #expect(
            dropped(center.receive(payload: payload(["event": "update", "timestamp": "1"]), target: .activityToken(token))) == "missing-timestamp"
        )
        #expect(
            dropped(center.receive(payload: payload(["event": "update", "timestamp": now]), target: .activityToken(token))) == "missing-content-state"
        )
        #expect(
            dropped(center.receive(payload: payload(["event": "update", "timestamp": now]), target: .activityToken(Data([1]))))
                == "unknown-activity-token"
        )
        #expect(
            dropped(center.receive(payload: payload(["event": "start", "timestamp": now]), target: .activityToken(token)))
                == "start-needs-push-to-start-token"
        )
    }

    @Test("end: kept until dismissal-date, at once for a past one, four hours without; later pushes are dropped")
    func end() throws {
        let (center, activity, token) = try started()
        let ended = center.receive(
            payload: payload(["event": "end", "timestamp": now, "content-state": ["status": "delivered", "minutes": 0], "dismissal-date": now + 120]),
            target: .activityToken(token)
        )
        #expect(ended.contains(.stateChanged(id: activity.id, state: .ended)))
        #expect(activity.content.state.status == "delivered")
        clock.advance(by: 120)
        #expect(activity.activityState == .dismissed)
        let late = center.receive(
            payload: payload(["event": "update", "timestamp": now, "content-state": ["status": "x", "minutes": 1]]),
            target: .activityToken(token)
        )
        #expect(dropped(late) == "activity-ended")

        let (other, second, secondToken) = try started()
        let past = other.receive(
            payload: payload(["event": "end", "timestamp": now, "dismissal-date": now - 10]),
            target: .activityToken(secondToken)
        )
        #expect(past == [.stateChanged(id: second.id, state: .ended), .stateChanged(id: second.id, state: .dismissed)])
        let (third, activity3, thirdToken) = try started()
        _ = third.receive(payload: payload(["event": "end", "timestamp": now]), target: .activityToken(thirdToken))
        clock.advance(by: 4 * 3600 - 1)
        #expect(activity3.activityState == .ended)
        clock.advance(by: 1)
        #expect(activity3.activityState == .dismissed)
    }

    @Test("priority 10 has a budget: over it the update applies without its alert; frequent updates get the larger one")
    func budget() throws {
        let (center, activity, token) = try started { $0.highPriorityBudget = BackgroundPushBudget(limit: 2, window: 3600) }
        func push(_ minutes: Int, priority: Int) -> [ActivityEvent] {
            center.receive(
                payload: payload([
                    "event": "update", "timestamp": now, "content-state": ["status": "s", "minutes": minutes], "alert": ["title": "t", "body": "b"],
                ]),
                target: .activityToken(token),
                priority: priority
            )
        }
        let alert = AlertConfiguration(title: "t", body: "b")
        #expect(push(1, priority: 10) == [.updated(id: activity.id, alert: alert, throttled: false)])
        #expect(push(2, priority: 10) == [.updated(id: activity.id, alert: alert, throttled: false)])
        #expect(push(3, priority: 10) == [.updated(id: activity.id, alert: nil, throttled: true)])
        #expect(activity.content.state.minutes == 3)
        // Priority 5 is never counted.
        #expect(push(4, priority: 5) == [.updated(id: activity.id, alert: alert, throttled: false)])
        clock.advance(by: 3600)
        #expect(push(5, priority: 10) == [.updated(id: activity.id, alert: alert, throttled: false)])

        let (frequent, activity2, token2) = try started {
            $0.supportsFrequentUpdates = true
            $0.highPriorityBudget = BackgroundPushBudget(limit: 1, window: 3600)
        }
        for minutes in 0..<20 {
            let events = frequent.receive(
                payload: payload(["event": "update", "timestamp": now, "content-state": ["status": "s", "minutes": minutes]]),
                target: .activityToken(token2),
                priority: 10
            )
            #expect(events == [.updated(id: activity2.id, alert: nil, throttled: false)])
        }
    }

    @Test("push-to-start: start needs attributes-type, attributes, content-state and alert; input-push-token reports a token")
    func pushToStart() async throws {
        let center = ActivityCenter(clock: clock)
        let startToken = try #require(center.withCurrent { Activity<DeliveryAttributes>.pushToStartToken })
        var started = center.withCurrent { Activity<DeliveryAttributes>.activityUpdates }.makeAsyncIterator()
        let complete: [String: Any] = [
            "event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": ["orderNumber": 9],
            "content-state": ["status": "preparing", "minutes": 30], "alert": ["title": "Order 9", "body": "Preparing"], "input-push-token": 1,
        ]
        for field in ["attributes-type", "attributes", "content-state", "alert"] {
            var partial = complete
            partial[field] = nil
            #expect(dropped(center.receive(payload: payload(partial), target: .pushToStartToken(startToken))) == "missing-\(field)")
        }
        var wrongType = complete
        wrongType["attributes-type"] = "PizzaAttributes"
        #expect(dropped(center.receive(payload: payload(wrongType), target: .pushToStartToken(startToken))) == "attributes-type-mismatch")
        var badAttributes = complete
        badAttributes["attributes"] = ["orderNumber": "nine"]
        #expect(dropped(center.receive(payload: payload(badAttributes), target: .pushToStartToken(startToken))) == "undecodable-attributes")
        var update = complete
        update["event"] = "update"
        #expect(dropped(center.receive(payload: payload(update), target: .pushToStartToken(startToken))) == "not-start")
        #expect(dropped(center.receive(payload: payload(complete), target: .pushToStartToken(Data([9])))) == "unknown-push-to-start-token")

        let events = center.receive(payload: payload(complete), target: .pushToStartToken(startToken))
        guard case .started(let id, "DeliveryAttributes", true) = events.first else {
            Issue.record("not started: \(events)")
            return
        }
        let activity = try #require(await started.next())
        #expect(activity.id == id && activity.attributes.orderNumber == 9)
        let token = try #require(activity.pushToken)
        #expect(events.contains(.pushTokenChanged(id: id, token: token)))
        #expect(token != startToken)
        // The new activity takes updates by its own token.
        let next = center.receive(
            payload: payload(["event": "update", "timestamp": now + 1, "content-state": ["status": "ready", "minutes": 0]]),
            target: .activityToken(token)
        )
        #expect(next.first == .updated(id: id, alert: nil, throttled: false))
        // The push-to-start token can change; the old one is then unknown.
        let rotated = try #require(center.rotatePushToStartToken(typeName: "DeliveryAttributes"))
        #expect(rotated != startToken)
        #expect(dropped(center.receive(payload: payload(complete), target: .pushToStartToken(startToken))) == "unknown-push-to-start-token")
    }

    @Test("push-to-start with input-push-channel subscribes the activity; a channel push updates every subscriber")
    func channel() throws {
        let center = ActivityCenter(clock: clock)
        let startToken = center.register(DeliveryAttributes.self)
        var ids: [String] = []
        for number in 0..<3 {
            let events = center.receive(
                payload: payload([
                    "event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": ["orderNumber": number],
                    "content-state": ["status": "live", "minutes": 90], "alert": ["title": "Match", "body": "Kick-off"],
                    "input-push-channel": "bWF0Y2g=",
                ]),
                target: .pushToStartToken(startToken)
            )
            if case .started(let id, _, _) = events.first { ids.append(id) }
            #expect(!events.contains { if case .pushTokenChanged = $0 { true } else { false } })
        }
        #expect(ids.count == 3)
        let broadcast = center.receive(
            payload: payload(["event": "update", "timestamp": now + 1, "content-state": ["status": "goal", "minutes": 12]]),
            target: .channel("bWF0Y2g=")
        )
        #expect(broadcast == ids.map { .updated(id: $0, alert: nil, throttled: false) })
        #expect(center.snapshots.allSatisfy { $0.contentState.contains("goal") && $0.channelID == "bWF0Y2g=" })
        #expect(
            center.receive(
                payload: payload(["event": "update", "timestamp": now + 2, "content-state": ["status": "x", "minutes": 1]]),
                target: .channel("other")
            ).isEmpty
        )
        #expect(dropped(center.receive(payload: payload(["event": "start", "timestamp": now]), target: .channel("bWF0Y2g="))) == "start-on-channel")
    }

    @Test("push-to-start respects the limit of running activities and the person's switch")
    func startLimits() throws {
        var configuration = ActivityCenter.Configuration()
        configuration.maximumActivities = 1
        let center = ActivityCenter(clock: clock, configuration: configuration)
        let startToken = center.register(DeliveryAttributes.self)
        let start = payload([
            "event": "start", "timestamp": now, "attributes-type": "DeliveryAttributes", "attributes": ["orderNumber": 1],
            "content-state": ["status": "s", "minutes": 1], "alert": ["title": "t", "body": "b"],
        ])
        #expect(dropped(center.receive(payload: start, target: .pushToStartToken(startToken))) == nil)
        #expect(dropped(center.receive(payload: start, target: .pushToStartToken(startToken))) == "maximum-activities")
        configuration.activitiesEnabled = false
        let off = ActivityCenter(clock: clock, configuration: configuration)
        let offToken = off.register(DeliveryAttributes.self)
        #expect(dropped(off.receive(payload: start, target: .pushToStartToken(offToken))) == "activities-disabled")
    }
}
