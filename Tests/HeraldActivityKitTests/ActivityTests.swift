import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@testable import HeraldActivityKit

/// A food order, as in Apple's ActivityKit examples.
struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable, Sendable {
        var status: String
        var minutes: Int
    }

    var orderNumber: Int
}

/// The app's own calls: request, update, end; the limits; the streams; time on the injected clock.
@Suite("ActivityKit: the app's activities on the injected clock", .tier(.unit))
struct ActivityTests {
    let clock = ManualNotificationClock()
    var center: ActivityCenter { ActivityCenter(clock: clock) }

    static let preparing = DeliveryAttributes.ContentState(status: "preparing", minutes: 20)
    static let onTheWay = DeliveryAttributes.ContentState(status: "on the way", minutes: 8)

    @Test("request starts an active activity with a push token that is not the device's and can change")
    func request() async throws {
        let center = self.center
        try await center.withCurrentAsync {
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 42),
                content: ActivityContent(state: Self.preparing, staleDate: nil),
                pushType: .token
            )
            #expect(activity.activityState == .active)
            #expect(activity.content.state == Self.preparing)
            let token = try #require(activity.pushToken)
            #expect(token.count == 32)
            #expect(Activity<DeliveryAttributes>.activities.map(\.id) == [activity.id])
            #expect(Activity<DeliveryAttributes>.activities.first?.attributes.orderNumber == 42)

            var tokens = activity.pushTokenUpdates.makeAsyncIterator()
            #expect(await tokens.next() == token)
            let rotated = try #require(center.rotatePushToken(activityID: activity.id))
            #expect(rotated != token)
            #expect(await tokens.next() == rotated)
            #expect(activity.pushToken == rotated)
            #expect(center.events.contains(.started(id: activity.id, typeName: "DeliveryAttributes", byPush: false)))
        }
    }

    @Test("without a push type there is no token; with a channel the activity subscribes to it")
    func pushTypes() throws {
        let center = self.center
        try center.withCurrent {
            let local = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 1),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            #expect(local.pushToken == nil)
            let broadcast = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 2),
                content: ActivityContent(state: Self.preparing, staleDate: nil),
                pushType: .channel("dHN0LXNyY2gtY2hubA==")
            )
            #expect(broadcast.pushToken == nil)
            #expect(center.snapshots.last?.channelID == "dHN0LXNyY2gtY2hubA==")
        }
    }

    @Test("update changes the content and the streams see it; the stale date makes it stale, a new update active again")
    func updateAndStale() async throws {
        let center = self.center
        try await center.withCurrentAsync {
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 7),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            var contents = activity.contentUpdates.makeAsyncIterator()
            var states = activity.activityStateUpdates.makeAsyncIterator()
            let staleAt = clock.now.addingTimeInterval(600)
            await activity.update(ActivityContent(state: Self.onTheWay, staleDate: staleAt, relevanceScore: 50))
            #expect(await contents.next()?.state == Self.onTheWay)
            #expect(activity.content.relevanceScore == 50)
            clock.advance(by: 599)
            #expect(activity.activityState == .active)
            clock.advance(by: 1)
            #expect(activity.activityState == .stale)
            #expect(await states.next() == .stale)
            await activity.update(ActivityContent(state: Self.preparing, staleDate: nil))
            #expect(activity.activityState == .active)
            #expect(await states.next() == .active)
        }
    }

    @Test("end keeps it on screen for four hours by default; .immediate dismisses at once; .after within the window")
    func endAndDismissal() async throws {
        let center = self.center
        try await center.withCurrentAsync {
            let byDefault = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 1),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            let immediate = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 2),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            let later = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 3),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            await byDefault.end(ActivityContent(state: Self.onTheWay, staleDate: nil))
            await immediate.end(nil, dismissalPolicy: .immediate)
            await later.end(nil, dismissalPolicy: .after(clock.now.addingTimeInterval(60)))
            #expect(byDefault.activityState == .ended)
            #expect(byDefault.content.state == Self.onTheWay)
            #expect(immediate.activityState == .dismissed)
            #expect(later.activityState == .ended)
            // An ended activity takes no more updates.
            await byDefault.update(ActivityContent(state: Self.preparing, staleDate: nil))
            #expect(byDefault.content.state == Self.onTheWay)
            clock.advance(by: 60)
            #expect(later.activityState == .dismissed)
            clock.advance(by: 4 * 3600 - 61)
            #expect(byDefault.activityState == .ended)
            clock.advance(by: 1)
            #expect(byDefault.activityState == .dismissed)
            #expect(Activity<DeliveryAttributes>.activities.isEmpty)
        }
    }

    @Test("a dismissal date beyond four hours is held to four hours")
    func dismissalCapped() async throws {
        let center = self.center
        try await center.withCurrentAsync {
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 1),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            await activity.end(nil, dismissalPolicy: .after(clock.now.addingTimeInterval(24 * 3600)))
            clock.advance(by: 4 * 3600)
            #expect(activity.activityState == .dismissed)
        }
    }

    @Test("after eight hours the system ends it, and it leaves the screen four hours later")
    func eightHours() throws {
        let center = self.center
        try center.withCurrent {
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderNumber: 1),
                content: ActivityContent(state: Self.preparing, staleDate: nil)
            )
            clock.advance(by: 8 * 3600 - 1)
            #expect(activity.activityState == .active)
            clock.advance(by: 1)
            #expect(activity.activityState == .ended)
            clock.advance(by: 4 * 3600)
            #expect(activity.activityState == .dismissed)
        }
    }

    @Test("the app runs at most five at once (an ended one does not count); disabled activities and large data are refused")
    func limits() async throws {
        let center = self.center
        try await center.withCurrentAsync {
            var started: [Activity<DeliveryAttributes>] = []
            for number in 0..<5 {
                started.append(
                    try Activity.request(
                        attributes: DeliveryAttributes(orderNumber: number),
                        content: ActivityContent(state: Self.preparing, staleDate: nil)
                    )
                )
            }
            #expect(throws: ActivityAuthorizationError.targetMaximumExceeded) {
                try Activity.request(attributes: DeliveryAttributes(orderNumber: 5), content: ActivityContent(state: Self.preparing, staleDate: nil))
            }
            await started[0].end(nil)
            _ = try Activity.request(attributes: DeliveryAttributes(orderNumber: 6), content: ActivityContent(state: Self.preparing, staleDate: nil))
            let huge = DeliveryAttributes.ContentState(status: String(repeating: "x", count: 4096), minutes: 1)
            await started[1].end(nil)
            #expect(throws: ActivityAuthorizationError.attributesTooLarge) {
                try Activity.request(attributes: DeliveryAttributes(orderNumber: 7), content: ActivityContent(state: huge, staleDate: nil))
            }
        }
        var configuration = ActivityCenter.Configuration()
        configuration.activitiesEnabled = false
        try ActivityCenter(clock: clock, configuration: configuration).withCurrent {
            #expect(!ActivityAuthorizationInfo().areActivitiesEnabled)
            #expect(throws: ActivityAuthorizationError.denied) {
                try Activity.request(attributes: DeliveryAttributes(orderNumber: 1), content: ActivityContent(state: Self.preparing, staleDate: nil))
            }
        }
    }
}
