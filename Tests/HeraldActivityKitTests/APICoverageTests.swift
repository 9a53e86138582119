import Foundation
import HeraldActivityKit
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Apple's ActivityKit, symbol by symbol (docs/api-coverage.md): each line names one symbol with Apple's signature, so
// the build fails when one is missing or changes shape. Only the last test runs.

/// Attributes as an app declares them for Apple's SDK: not `Sendable`, a class reference inside.
struct APICoverageAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var progress: Double
    }

    final class Formatter: Codable {
        var unit = "km"
    }

    var name: String
    var formatter = Formatter()
}

enum ActivityKitSurface {
    static let types: [Any.Type] = [
        Activity<APICoverageAttributes>.self, ActivityContent<APICoverageAttributes.ContentState>.self, ActivityState.self,
        ActivityStyle.self, ActivityUIDismissalPolicy.self, AlertConfiguration.self, AlertConfiguration.AlertSound.self,
        ActivityAuthorizationInfo.self, ActivityAuthorizationInfo.ActivityEnablementUpdates.self,
        ActivityAuthorizationInfo.FrequentPushEnablementUpdates.self, ActivityAuthorizationError.self, PushType.self,
        Activity<APICoverageAttributes>.ContentState.self, Activity<APICoverageAttributes>.PushTokenUpdates.self,
        Activity<APICoverageAttributes>.ActivityStateUpdates.self, Activity<APICoverageAttributes>.ContentUpdates.self,
        Activity<APICoverageAttributes>.ActivityUpdates.self,
    ]

    static let values: [any Sendable] = [
        [ActivityState.active, .ended, .dismissed, .stale, .pending],
        [ActivityStyle.standard, .transient],
        [ActivityUIDismissalPolicy.default, .immediate, .after(Date())],
        [AlertConfiguration.AlertSound.default, .named("a.caf")],
        [PushType.token, .channel("c")],
        [
            ActivityAuthorizationError.attributesTooLarge, .denied, .globalMaximumExceeded, .malformedActivityIdentifier,
            .missingProcessIdentifier, .persistenceFailure, .reconnectNotPermitted, .targetMaximumExceeded, .unentitled,
            .unsupported, .unsupportedTarget, .visibility,
        ],
    ]

    static func names(_ activity: Activity<APICoverageAttributes>) async throws {
        typealias A = Activity<APICoverageAttributes>
        let state = APICoverageAttributes.ContentState(progress: 0.5)
        let content = ActivityContent(state: state, staleDate: nil, relevanceScore: 1)
        let _ = ActivityContent(state: state, staleDate: Date())
        let _: APICoverageAttributes.ContentState = content.state
        let _: Date? = content.staleDate
        let _: Double = content.relevanceScore
        let attributes = APICoverageAttributes(name: "run")
        let _: A = try A.request(attributes: attributes, content: content, pushType: .token)
        let _: A = try A.request(attributes: attributes, content: content)
        let _: A = try A.request(attributes: attributes, content: content, pushType: nil, style: .transient)
        let _: A = try A.request(
            attributes: attributes,
            content: content,
            pushType: .token,
            style: .standard,
            alertConfiguration: AlertConfiguration(title: "t", body: "b", sound: .default),
            startDate: Date()
        )
        let _: A = try A.request(attributes: attributes, contentState: state, pushType: .token)
        let _: A = try A.request(attributes: attributes, contentState: state)
        let _: [A] = A.activities
        let _: A.ActivityUpdates = A.activityUpdates
        let _: Data? = A.pushToStartToken
        let _: A.PushTokenUpdates = A.pushToStartTokenUpdates
        let _: String = activity.id
        let _: APICoverageAttributes = activity.attributes
        let _: ActivityContent<A.ContentState> = activity.content
        let _: A.ContentState = activity.contentState
        let _: ActivityState = activity.activityState
        let _: Data? = activity.pushToken
        let _: A.PushTokenUpdates = activity.pushTokenUpdates
        let _: A.ActivityStateUpdates = activity.activityStateUpdates
        let _: A.ContentUpdates = activity.contentUpdates
        await activity.update(content)
        await activity.update(content, alertConfiguration: AlertConfiguration(title: "t", body: "b", sound: .default))
        await activity.update(content, alertConfiguration: nil, timestamp: Date())
        await activity.update(using: state)
        await activity.update(using: state, alertConfiguration: AlertConfiguration(title: "t", body: "b", sound: .named("a.caf")))
        await activity.end(content, dismissalPolicy: .immediate)
        await activity.end(nil)
        await activity.end(content, dismissalPolicy: .default, timestamp: Date())
        await activity.end(using: state, dismissalPolicy: .after(Date()))
        await activity.end(using: nil)
        for await _ in activity.pushTokenUpdates {}
        for await _ in activity.activityStateUpdates {}
        for await _ in activity.contentUpdates {}
        for await _ in A.activityUpdates {}
        let info = ActivityAuthorizationInfo()
        let _: Bool = info.areActivitiesEnabled
        let _: Bool = info.frequentPushesEnabled
        for await _ in info.activityEnablementUpdates {}
        for await _ in info.frequentPushEnablementUpdates {}
        let alert = AlertConfiguration(title: "t", body: "b", sound: .default)
        let _: String = alert.title
        let _: String = alert.body
        let _: AlertConfiguration.AlertSound = alert.sound
        let error: any LocalizedError = ActivityAuthorizationError.denied
        let _: String? = error.errorDescription
    }
}

@Suite("Apple's ActivityKit surface compiles (docs/api-coverage.md)", .tier(.unit))
struct ActivityKitAPICoverageTests {
    @Test("attributes that are not Sendable start, update and end an activity")
    func nonSendableAttributes() async throws {
        #expect(ActivityKitSurface.types.count == 17)
        let center = ActivityCenter(clock: ManualNotificationClock())
        try await center.withCurrentAsync {
            let activity = try Activity.request(
                attributes: APICoverageAttributes(name: "run"),
                contentState: APICoverageAttributes.ContentState(progress: 0.1)
            )
            #expect(activity.attributes.name == "run")
            #expect(activity.attributes.formatter.unit == "km")
            await activity.update(using: APICoverageAttributes.ContentState(progress: 0.6))
            #expect(activity.contentState.progress == 0.6)
            await activity.end(using: nil, dismissalPolicy: .immediate)
            #expect(activity.activityState == .dismissed)
        }
    }

    @Test("a scheduled activity is pending and off screen until its start date, then active with its alert")
    func scheduledStart() throws {
        let clock = ManualNotificationClock()
        let center = ActivityCenter(clock: clock)
        try center.withCurrent {
            let alert = AlertConfiguration(title: "Kick-off", body: "The match starts", sound: .default)
            let activity = try Activity.request(
                attributes: APICoverageAttributes(name: "match"),
                content: ActivityContent(state: APICoverageAttributes.ContentState(progress: 0), staleDate: nil),
                style: .standard,
                alertConfiguration: alert,
                startDate: clock.now.addingTimeInterval(600)
            )
            #expect(activity.activityState == .pending)
            #expect(Activity<APICoverageAttributes>.activities.isEmpty)
            clock.advance(by: 600)
            #expect(activity.activityState == .active)
            #expect(Activity<APICoverageAttributes>.activities.map(\.id) == [activity.id])
            #expect(center.events.contains(.updated(id: activity.id, alert: alert, throttled: false)))
        }
    }
}
