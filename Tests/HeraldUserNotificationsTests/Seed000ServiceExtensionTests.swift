import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 000 ("iOS 10: Notification Service Extensions"). The seed's text describes the sample but
// its code listing did not survive in the seed file; this is the Xcode template it describes
// (keep the content handler, edit a mutable copy, deliver the best attempt when time runs out),
// with only `import UserNotifications` changed.

class NotificationService: UNNotificationServiceExtension {

    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)

        if let bestAttemptContent = bestAttemptContent {
            // Modify the notification content here...
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"

            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        // Called just before the extension will be terminated by the system.
        // Use this as an opportunity to deliver your "best attempt" at modified content, otherwise the original push payload will be used.
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }

}

/// The seed's "slow" variant: edits the content but only hands it over when time expires
/// (the seed: "keep a reference to the completion handler … to provide an in-progress version").
class SlowNotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        bestAttemptContent?.body = "Sender: Alice (from the contact list)"
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

/// An extension that never hands anything over.
class HangingNotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {}
}

struct ExtensionLaunchFailure: Error {}

@Suite("Seed 000: notification service extension", .tier(.unit))
struct Seed000ServiceExtensionTests {
    @Test("the template's extension modifies an alert with mutable-content: 1")
    func modifiesMutableAlert() async throws {
        let runtime = try await makeRuntime(serviceExtension: { NotificationService() })
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(title: "New message", aps: ["mutable-content": 1]))
        #expect(outcome.serviceExtension == .completed)
        #expect(outcome.displayedContent?.title == "New message [modified]")
        let delivered = await runtime.center.deliveredNotifications()
        #expect(delivered.first?.request.content.title == "New message [modified]")
        #expect(delivered.first?.request.trigger is UNPushNotificationTrigger)
    }

    @Test("the extension does not run without mutable-content: 1")
    func needsMutableContent() async throws {
        let runtime = try await makeRuntime(serviceExtension: { NotificationService() })
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(title: "Plain"))
        #expect(outcome.serviceExtension == .notRun(reason: "mutable-content is not 1"))
        #expect(outcome.displayedContent?.title == "Plain")
        #expect(!(await runtime.appCalls).contains(.serviceExtensionDidReceive))
    }

    @Test("silent, badge-only and sound-only pushes never run the extension")
    func silentNeverRuns() async throws {
        let runtime = try await makeRuntime(serviceExtension: { NotificationService() })
        for aps: [String: Any] in [
            ["content-available": 1, "mutable-content": 1],
            ["badge": 3, "mutable-content": 1],
            ["sound": "default", "mutable-content": 1],
        ] {
            let outcome = try await runtime.receiveRemoteNotification(["aps": aps])
            #expect(!outcome.serviceExtension.usedExtensionContent)
            #expect(outcome.serviceExtension == .notRun(reason: "not an alert: no title, subtitle or body"))
        }
        #expect(!(await runtime.appCalls).contains(.serviceExtensionDidReceive))
    }

    @Test("on expiry serviceExtensionTimeWillExpire hands over the best attempt")
    func expiryShowsBestAttempt() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock, serviceExtension: { SlowNotificationService() })
        async let outcome = runtime.receiveRemoteNotification(alertPayload(body: "from 4711", aps: ["mutable-content": 1]))
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 29)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 1)
        let result = try await outcome
        #expect(result.serviceExtension == .expiredWithBestAttempt)
        #expect(result.displayedContent?.body == "Sender: Alice (from the contact list)")
        #expect(await runtime.appCalls.suffix(2) == [.serviceExtensionDidReceive, .serviceExtensionTimeWillExpire])
    }

    @Test("when nothing is handed over, the original content is shown after the budget")
    func expiryShowsOriginal() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock, serviceExtension: { HangingNotificationService() })
        async let outcome = runtime.receiveRemoteNotification(alertPayload(body: "original", aps: ["mutable-content": 1]))
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 30)
        let result = try await outcome
        #expect(result.serviceExtension == .expiredShowingOriginal)
        #expect(result.displayedContent?.body == "original")
    }

    @Test("the budget is configurable")
    func configurableBudget() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(
            clock: clock,
            configure: { $0.serviceExtensionBudget = 5 },
            serviceExtension: { SlowNotificationService() }
        )
        async let outcome = runtime.receiveRemoteNotification(alertPayload(aps: ["mutable-content": 1]))
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 5)
        #expect(try await outcome.serviceExtension == .expiredWithBestAttempt)
    }

    @Test("an extension that fails to run shows the original content")
    func failureShowsOriginal() async throws {
        let runtime = try await makeRuntime(serviceExtension: { throw ExtensionLaunchFailure() })
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(body: "original", aps: ["mutable-content": 1]))
        guard case .failedShowingOriginal = outcome.serviceExtension else {
            Issue.record("expected a failure, got \(outcome.serviceExtension)")
            return
        }
        #expect(outcome.displayedContent?.body == "original")
        #expect(outcome.alertShown)
    }

    @Test("the extension does not run when the app may not show alerts")
    func needsAlertAuthorization() async throws {
        let runtime = try await makeRuntime(serviceExtension: { NotificationService() }, authorize: [.badge])
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(aps: ["mutable-content": 1]))
        #expect(outcome.serviceExtension == .notRun(reason: "the app may not show alerts"))
    }
}
