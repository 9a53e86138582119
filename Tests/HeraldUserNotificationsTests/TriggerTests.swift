import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@Suite("Triggers on the injected clock", .tier(.unit))
struct TriggerTests {
    @Test("time interval: must be > 0, and ≥ 60 s when repeating", arguments: [(0.0, false), (-5, false), (59, true)])
    func invalidIntervals(interval: Double, repeats: Bool) async throws {
        #expect(throws: UNError.self) { try UNTimeIntervalNotificationTrigger(validatingTimeInterval: interval, repeats: repeats) }
        let center = try await makeRuntime().center
        let content = UNMutableNotificationContent()
        content.body = "b"
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)
        center.add(UNNotificationRequest(identifier: "t", content: content, trigger: trigger)) { error in
            #expect((error as? UNError)?.code == .notificationInvalidNoDate)
        }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("time interval: 60 s repeating is valid and fires every 60 s until removed")
    func repeatingInterval() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock)
        _ = try UNTimeIntervalNotificationTrigger(validatingTimeInterval: 60, repeats: true)
        try await runtime.center.add(request("r", title: "tick", after: 60, repeats: true))
        clock.advance(by: 59)
        #expect(await runtime.fireDueNotifications().isEmpty)
        clock.advance(by: 1)
        #expect(await runtime.fireDueNotifications() == ["r"])
        clock.advance(by: 60)
        #expect(await runtime.fireDueNotifications() == ["r"])
        #expect(await runtime.nextFireDate == clock.now.addingTimeInterval(60))
        runtime.center.removePendingNotificationRequests(withIdentifiers: ["r"])
        clock.advance(by: 60)
        #expect(await runtime.fireDueNotifications().isEmpty)
    }

    @Test("nextTriggerDate reads the running device's clock")
    func nextTriggerDateUsesClock() async throws {
        let clock = ManualNotificationClock(start: Date(timeIntervalSince1970: 1_000_000))
        let runtime = try await makeRuntime(clock: clock)
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: false)
        runtime.withCurrentCenter { #expect(trigger.nextTriggerDate() == Date(timeIntervalSince1970: 1_000_030)) }
    }

    @Test("calendar: matches only the given fields, fires then, and repeats daily")
    func calendar() async throws {
        // 2023-11-14 22:13:20 UTC
        let clock = ManualNotificationClock(start: Date(timeIntervalSince1970: 1_700_000_000))
        let runtime = try await makeRuntime(clock: clock)
        var components = DateComponents()
        components.hour = 8
        components.minute = 30
        components.timeZone = TimeZone(identifier: "UTC")
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        let expected = Date(timeIntervalSince1970: 1_700_037_000)  // 2023-11-15 08:30 UTC
        runtime.withCurrentCenter { #expect(trigger.nextTriggerDate() == expected) }
        let content = UNMutableNotificationContent()
        content.body = "Good morning"
        try await runtime.center.add(UNNotificationRequest(identifier: "morning", content: content, trigger: trigger))
        clock.advance(by: expected.timeIntervalSince(clock.now) - 1)
        #expect(await runtime.fireDueNotifications().isEmpty)
        clock.advance(by: 1)
        #expect(await runtime.fireDueNotifications() == ["morning"])
        #expect(await runtime.nextFireDate == expected.addingTimeInterval(86_400))
    }

    @Test("calendar: a date in the past never fires and is refused")
    func calendarPast() async throws {
        let runtime = try await makeRuntime()
        var components = DateComponents()
        components.year = 2001
        components.month = 1
        components.day = 1
        components.timeZone = TimeZone(identifier: "UTC")
        let content = UNMutableNotificationContent()
        content.body = "too late"
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
        runtime.withCurrentCenter { #expect(trigger.nextTriggerDate() == nil) }
        await #expect(throws: UNError.self) {
            try await runtime.center.add(UNNotificationRequest(identifier: "c", content: content, trigger: trigger))
        }
    }

    @Test("location: entering fires when notifyOnEntry; leaving fires when notifyOnExit")
    func location() async throws {
        let runtime = try await makeRuntime()
        let office = CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522)
        let far = CLLocationCoordinate2D(latitude: 48.9, longitude: 2.5)
        let entry = CLCircularRegion(center: office, radius: 200, identifier: "office")
        entry.notifyOnExit = false
        let exit = CLCircularRegion(center: office, radius: 200, identifier: "office-exit")
        exit.notifyOnEntry = false
        let content = UNMutableNotificationContent()
        content.body = "at the office"
        try await runtime.center.add(
            UNNotificationRequest(identifier: "in", content: content, trigger: UNLocationNotificationTrigger(region: entry, repeats: false))
        )
        try await runtime.center.add(
            UNNotificationRequest(identifier: "out", content: content, trigger: UNLocationNotificationTrigger(region: exit, repeats: true))
        )
        #expect(await runtime.updateLocation(far).isEmpty)
        #expect(await runtime.updateLocation(office) == ["in"])
        #expect(await runtime.updateLocation(office).isEmpty)
        #expect(await runtime.updateLocation(far) == ["out"])
        #expect(await runtime.center.pendingNotificationRequests().map(\.identifier) == ["out"])
        // Location-triggered notifications cannot be retrieved, but can be removed (spec §C.1).
        #expect(await runtime.center.deliveredNotifications().isEmpty)
        #expect(await runtime.snapshot().threads.first?.notifications.count == 2)
        runtime.center.removeDeliveredNotifications(withIdentifiers: ["in", "out"])
        #expect(await runtime.snapshot().threads.isEmpty)
    }

    @Test("location triggers need location authorization")
    func locationAuthorization() async throws {
        let runtime = try await makeRuntime(configure: { $0.locationAuthorized = false })
        let spot = CLLocationCoordinate2D(latitude: 1, longitude: 1)
        let content = UNMutableNotificationContent()
        content.body = "x"
        let region = CLCircularRegion(center: spot, radius: 100, identifier: "r")
        try await runtime.center.add(
            UNNotificationRequest(identifier: "l", content: content, trigger: UNLocationNotificationTrigger(region: region, repeats: false))
        )
        #expect(await runtime.updateLocation(spot).isEmpty)
    }

    @Test("a request without a trigger is due at once; a push trigger cannot be scheduled locally")
    func immediateAndPush() async throws {
        let runtime = try await makeRuntime()
        try await runtime.center.add(request("now", title: "now", after: nil))
        #expect(await runtime.fireDueNotifications() == ["now"])
        let remote = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "p")
        let pushRequest = try #require(await runtime.center.deliveredNotifications().first { $0.request.identifier == remote.identifier })
        await #expect(throws: UNError.self) { try await runtime.center.add(pushRequest.request) }
    }
}
