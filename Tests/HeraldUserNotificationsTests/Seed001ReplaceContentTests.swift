import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 001 (Guardian Mobile Innovation Lab, "How to replace the content of an iOS notification").
// The seed's Swift listing was machine-translated into Bulgarian keywords; this is the same code
// back in Swift, inside a namespace so its class name does not clash with other seeds. Only the
// import differs from the original.
enum Seed001 {
    class NotificationService: UNNotificationServiceExtension {

        override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler:
                @escaping (UNNotificationContent) -> Void
        ) {

            let userInfo = request.content.userInfo
            let customID = userInfo["custom-payload-id"] as? String

            UNUserNotificationCenter.current()
                .getDeliveredNotifications { notifications in
                    let matching = notifications.first(where: { notify in
                        let existingUserInfo = notify.request.content.userInfo
                        let id = existingUserInfo["custom-payload-id"] as? String
                        return id == customID
                    })

                    if let matchExists = matching {
                        UNUserNotificationCenter.current().removeDeliveredNotifications(
                            withIdentifiers: [matchExists.request.identifier]
                        )
                    }
                }
        }
    }
}

@Suite("Seed 001: replacing a notification's content", .tier(.unit))
struct Seed001ReplaceContentTests {
    @Test("the easy way: the same apns-collapse-id replaces the displayed notification at once")
    func collapseIDReplaces() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock)
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "Live: 1-0"), collapseID: "match-42")
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "Other"), collapseID: "other")
        clock.advance(by: 60)
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "Live: 2-0"), collapseID: "match-42")
        let delivered = await runtime.center.deliveredNotifications()
        #expect(delivered.map(\.request.identifier) == ["match-42", "other"])
        #expect(delivered.first?.request.content.title == "Live: 2-0")
        #expect(delivered.first?.date == clock.now)
        #expect(await runtime.events.contains { $0.kind == .replaced && $0.notificationIdentifier == "match-42" })
    }

    @Test("without a collapse id each push is a new notification")
    func noCollapseIDAddsNew() async throws {
        let runtime = try await makeRuntime()
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "A"), apnsID: "id-1")
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "A"))
        #expect(await runtime.center.deliveredNotifications().count == 2)
    }

    @Test("the hard way: the seed's extension removes the older notification with the same custom id")
    func serviceExtensionRemovesMatch() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock, serviceExtension: { Seed001.NotificationService() })
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "Score 1-0", extra: ["custom-payload-id": "live-7"]))
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "Unrelated", extra: ["custom-payload-id": "live-8"]))
        #expect(await runtime.center.deliveredNotifications().count == 2)

        async let update = runtime.receiveRemoteNotification(
            alertPayload(title: "Score 2-0", extra: ["custom-payload-id": "live-7"], aps: ["mutable-content": 1])
        )
        await clock.waitForSleepers(count: 1)
        // While the extension runs, the old notification is already gone ("disappears and reappears").
        let during = await runtime.center.deliveredNotifications().map(\.request.content.title)
        #expect(during == ["Unrelated"])
        // The sample never calls the content handler: the original content appears after 30 s.
        clock.advance(by: 30)
        let outcome = try await update
        #expect(outcome.serviceExtension == .expiredShowingOriginal)
        let titles = await runtime.center.deliveredNotifications().map(\.request.content.title)
        #expect(titles == ["Score 2-0", "Unrelated"])
    }
}
