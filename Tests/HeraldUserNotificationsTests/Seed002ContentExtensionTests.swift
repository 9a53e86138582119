import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Synchronization
import Testing

// Seed 002 ("IOS10 push must see UNNotificationContentExtension"). Its samples are Objective-C;
// here they are translated to Swift line by line. `NSLog` writes to a log the test reads, and
// `dispatch_after` runs on the runtime's clock instead of the wall clock (tests never sleep).
enum Seed002 {
    /// Where the samples' NSLog lines and delayed blocks go.
    final class Environment: Sendable {
        let log = Mutex<[String]>([])
        let delayed = Mutex<[Task<Void, Never>]>([])
        let clock: ManualNotificationClock

        init(clock: ManualNotificationClock) { self.clock = clock }

        func NSLog(_ line: String) { log.withLock { $0.append(line) } }

        /// `dispatch_after(dispatch_time(DISPATCH_TIME_NOW, seconds), main, block)` on the clock.
        func dispatchAfter(seconds: TimeInterval, _ block: @escaping @Sendable () -> Void) {
            let clock = clock
            let deadline = clock.now.addingTimeInterval(seconds)
            let task = Task {
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                block()
            }
            delayed.withLock { $0.append(task) }
        }

        func waitForDelayedBlocks() async {
            for task in delayed.withLock({ $0 }) { await task.value }
        }
    }

    // - (void)didReceiveNotificationRequest:withContentHandler: of the seed's service extension.
    class NotificationService: UNNotificationServiceExtension {
        var contentHandler: ((UNNotificationContent) -> Void)?
        var bestAttemptContent: UNMutableNotificationContent?

        override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
            self.contentHandler = contentHandler
            // copy notice to start doing some processing
            self.bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
            // Modify the notification content here...
            self.bestAttemptContent?.title = String(format: "%@ [modified]", self.bestAttemptContent?.title ?? "")
            // rewrite something
            self.bestAttemptContent?.title = "I am heading"
            self.bestAttemptContent?.subtitle = "I am sub title"
            self.bestAttemptContent?.body = "different from Xu"
            // annex
            let dict = self.bestAttemptContent?.userInfo
            let notiDict = dict?["aps"] as? [String: Any]
            let imgUrl = String(format: "%@", (notiDict?["imageAbsoluteString"] as? String) ?? "(null)")
            _ = imgUrl
            // "I write here dead category1 …"
            self.bestAttemptContent?.categoryIdentifier = "category1"
            // The template line the seed's listing is cut before:
            if let bestAttemptContent { self.contentHandler?(bestAttemptContent) }
        }
    }

    // The seed's NotificationViewController.
    class NotificationViewController: UIViewController, UNNotificationContentExtension {
        let env: Environment

        init(env: Environment) {
            self.env = env
            super.init()
        }

        func didReceive(_ notification: UNNotification) {
            let dict = notification.request.content.userInfo
            env.NSLog("\(dict)")
        }

        // Returns the default style button
        var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType {
            .default
        }

        // return button frame
        var mediaPlayPauseButtonFrame: CGRect {
            CGRect(x: 100, y: 100, width: 100, height: 100)
        }

        // return button color
        var mediaPlayPauseButtonTintColor: UIColor {
            UIColor.blue
        }

        func mediaPlay() {
            env.NSLog("mediaPlay, began to play")
            // click the play button, 4S pause
            let context = self.extensionContext
            env.dispatchAfter(seconds: 4) {
                context?.mediaPlayingPaused()
            }
        }

        func mediaPause() {
            env.NSLog("mediaPause, pause")
            // click the pause button, 10s began to play
            let context = self.extensionContext
            env.dispatchAfter(seconds: 10) {
                context?.mediaPlayingStarted()
            }
        }
    }

    static func infoPlist(category: String, array: Bool = false, hidden: Bool = false, overridesTitle: Bool = false) -> URL {
        let categoryXML =
            array
            ? "<array><string>\(category)</string><string>category2</string></array>"
            : "<string>\(category)</string>"
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>CFBundleName</key><string>NotificationContent</string>
                <key>NSExtension</key>
                <dict>
                    <key>NSExtensionAttributes</key>
                    <dict>
                        <key>UNNotificationExtensionCategory</key>\(categoryXML)
                        <key>UNNotificationExtensionInitialContentSizeRatio</key><real>0.5</real>
                        <key>UNNotificationExtensionDefaultContentHidden</key>\(hidden ? "<true/>" : "<false/>")
                        <key>UNNotificationExtensionOverridesDefaultTitle</key>\(overridesTitle ? "<true/>" : "<false/>")
                        <key>UNNotificationExtensionUserInteractionEnabled</key><true/>
                    </dict>
                    <key>NSExtensionMainStoryboard</key><string>MainInterface</string>
                    <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.content-extension</string>
                </dict>
            </dict>
            </plist>
            """
        let url = Fixture.directory().appendingPathComponent("Info.plist")
        try? Data(xml.utf8).write(to: url)
        return url
    }

    /// The payload the seed prints in didReceiveNotification:.
    static var payload: [String: Any] {
        [
            "aps": [
                "alert": "This is some fancy message.", "badge": 1, "from": "Hello, I'm Xu",
                "imageAbsoluteString": "http://upload.univs.cn/2012/0104/1325645511371.jpg", "mutable-content": 1, "sound": "default",
            ]
        ]
    }
}

/// A controller that answers actions with a fixed option and sets its title.
final class RespondingController: UIViewController, UNNotificationContentExtension {
    let option: UNNotificationContentExtensionResponseOption
    let received = Mutex<Int>(0)

    init(option: UNNotificationContentExtensionResponseOption) {
        self.option = option
        super.init()
    }

    override func viewDidLoad() { title = "Custom title" }

    func didReceive(_ notification: UNNotification) { received.withLock { $0 += 1 } }

    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(option)
    }

    var consoleLines: [String] { ["received \(received.withLock { $0 }) notification(s)"] }
}

/// A controller that does not implement action handling.
final class PassiveController: UIViewController, UNNotificationContentExtension {
    func didReceive(_ notification: UNNotification) {}
}

@Suite("Seed 002: notification content extension", .tier(.unit))
struct Seed002ContentExtensionTests {
    func seedRuntime(clock: ManualNotificationClock, env: Seed002.Environment, hidden: Bool = false) async throws -> DeviceRuntime {
        let registration = try ContentExtensionRegistration(infoPlist: Seed002.infoPlist(category: "category1", hidden: hidden)) {
            Seed002.NotificationViewController(env: env)
        }
        return try await makeRuntime(clock: clock, serviceExtension: { Seed002.NotificationService() }, contentExtensions: [registration])
    }

    @Test("Info.plist attributes are read from a real file: category as a string or an array")
    func infoPlistAttributes() throws {
        let single = try ContentExtensionAttributes(contentsOf: Seed002.infoPlist(category: "category1"))
        #expect(single.categories == ["category1"])
        #expect(single.initialContentSizeRatio == 0.5)
        #expect(!single.defaultContentHidden)
        #expect(single.userInteractionEnabled)
        let many = try ContentExtensionAttributes(contentsOf: Seed002.infoPlist(category: "video", array: true, hidden: true, overridesTitle: true))
        #expect(many.categories == ["video", "category2"])
        #expect(many.defaultContentHidden && many.overridesDefaultTitle)
    }

    @Test("an Info.plist without the required keys is refused")
    func infoPlistRequiredKeys() throws {
        let missingRatio: [String: Any] = [
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.usernotifications.content-extension",
                "NSExtensionAttributes": ["UNNotificationExtensionCategory": "c"],
            ]
        ]
        #expect(throws: ContentExtensionAttributes.InvalidInfoPlist.self) { try ContentExtensionAttributes(infoDictionary: missingRatio) }
        let wrongPoint: [String: Any] = [
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.usernotifications.service",
                "NSExtensionAttributes": ["UNNotificationExtensionCategory": "c", "UNNotificationExtensionInitialContentSizeRatio": 1],
            ]
        ]
        #expect(throws: ContentExtensionAttributes.InvalidInfoPlist.self) { try ContentExtensionAttributes(infoDictionary: wrongPoint) }
    }

    @Test("the service extension sets category1, so the content extension draws the expanded notification")
    func serviceThenContentExtension() async throws {
        let clock = ManualNotificationClock()
        let env = Seed002.Environment(clock: clock)
        let runtime = try await seedRuntime(clock: clock, env: env)
        let outcome = try await runtime.receiveRemoteNotification(Seed002.payload, collapseID: "xu")
        #expect(outcome.displayedContent?.title == "I am heading")
        #expect(outcome.displayedContent?.categoryIdentifier == "category1")
        #expect(await runtime.snapshot().threads.first?.notifications.first?.contentExtension == "NotificationContent")

        let rendering = try #require(try await runtime.expand("xu"))
        #expect(env.log.withLock { $0 }.first?.contains("imageAbsoluteString") == true)
        #expect(rendering.size == [320, 160])
        #expect(rendering.showsDefaultContent)
        #expect(rendering.defaultContent == ["I am heading", "I am sub title", "different from Xu"])
        #expect(rendering.mediaButton?.frame == [100, 100, 100, 100])
        #expect(rendering.mediaButton?.tint == "#0000FFFF")
        #expect(rendering.mediaButton?.type == .default)
        #expect(rendering.consoleText.contains("I am heading"))
    }

    @Test("DefaultContentHidden hides the title and body under the interface")
    func defaultContentHidden() async throws {
        let clock = ManualNotificationClock()
        let env = Seed002.Environment(clock: clock)
        let runtime = try await seedRuntime(clock: clock, env: env, hidden: true)
        _ = try await runtime.receiveRemoteNotification(Seed002.payload, collapseID: "xu")
        let rendering = try #require(try await runtime.expand("xu"))
        #expect(!rendering.showsDefaultContent)
        #expect(rendering.defaultContent.isEmpty)
    }

    @Test("play/pause: mediaPlay is called, then mediaPlayingPaused changes the button without calling mediaPause")
    func mediaButton() async throws {
        let clock = ManualNotificationClock()
        let env = Seed002.Environment(clock: clock)
        let runtime = try await seedRuntime(clock: clock, env: env)
        _ = try await runtime.receiveRemoteNotification(Seed002.payload, collapseID: "xu")
        try await runtime.expand("xu")
        let playing = try await runtime.tapMediaPlayPauseButton()
        #expect(playing.mediaButton?.isPlaying == true)
        #expect(env.log.withLock { $0 }.last == "mediaPlay, began to play")

        await clock.waitForSleepers(count: 1)
        clock.advance(by: 4)
        await env.waitForDelayedBlocks()
        #expect(await runtime.expandedRendering?.mediaButton?.isPlaying == false)
        #expect(await runtime.appCalls.filter { $0 == .mediaPause }.isEmpty)

        let paused = try await runtime.tapMediaPlayPauseButton()
        #expect(paused.mediaButton?.isPlaying == true)
        #expect(await runtime.appCalls.filter { $0 == .mediaPlay }.count == 2)
    }

    @Test("an extension without a media button refuses the play/pause tap")
    func noMediaButton() async throws {
        let registration = ContentExtensionRegistration(attributes: ContentExtensionAttributes(categories: ["c"], initialContentSizeRatio: 1)) {
            PassiveController()
        }
        let runtime = try await makeRuntime(contentExtensions: [registration])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "c"]), collapseID: "n")
        let rendering = try #require(try await runtime.expand("n"))
        #expect(rendering.mediaButton == nil)
        await #expect(throws: InteractionError.self) { try await runtime.tapMediaPlayPauseButton() }
    }

    @Test("only notifications of a listed category get the extension")
    func categoryChoosesExtension() async throws {
        let clock = ManualNotificationClock()
        let env = Seed002.Environment(clock: clock)
        let runtime = try await seedRuntime(clock: clock, env: env)
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "other"]), collapseID: "plain")
        #expect(try await runtime.expand("plain") == nil)
        #expect(env.log.withLock { $0 }.isEmpty)
    }

    @Test("response options: doNotDismiss and dismiss keep the action from the app, dismissAndForwardAction forwards it")
    func responseOptions() async throws {
        let expectations: [(UNNotificationContentExtensionResponseOption, Bool, Bool)] = [
            (.doNotDismiss, false, true),
            (.dismiss, false, false),
            (.dismissAndForwardAction, true, false),
        ]
        for (option, forwarded, stillExpanded) in expectations {
            let registration = ContentExtensionRegistration(
                attributes: ContentExtensionAttributes(categories: ["chat"], initialContentSizeRatio: 1, overridesDefaultTitle: true)
            ) { RespondingController(option: option) }
            let runtime = try await makeRuntime(contentExtensions: [registration])
            let delegate = RecordingCenterDelegate()
            runtime.center.delegate = delegate
            runtime.center.setNotificationCategories([
                UNNotificationCategory(identifier: "chat", actions: [UNNotificationAction(identifier: "like", title: "Like")], intentIdentifiers: [])
            ])
            _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "chat"]), collapseID: "m1")
            let rendering = try #require(try await runtime.expand("m1"))
            #expect(rendering.headerTitle == "Custom title")
            #expect(rendering.actions == ["Like"])
            let outcome = try await runtime.perform(actionIdentifier: "like", on: "m1")
            #expect(outcome.contentExtensionOption == option)
            #expect(outcome.deliveredToApp == forwarded)
            #expect(delegate.responses.withLock { $0.map(\.1) } == (forwarded ? ["like"] : []))
            #expect((await runtime.expandedRendering != nil) == stillExpanded)
        }
    }

    @Test("without didReceive(_:completionHandler:) the action goes to the app")
    func unimplementedResponseGoesToApp() async throws {
        let registration = ContentExtensionRegistration(attributes: ContentExtensionAttributes(categories: ["chat"], initialContentSizeRatio: 1)) {
            PassiveController()
        }
        let runtime = try await makeRuntime(contentExtensions: [registration])
        let delegate = RecordingCenterDelegate()
        runtime.center.delegate = delegate
        runtime.center.setNotificationCategories([
            UNNotificationCategory(identifier: "chat", actions: [UNNotificationAction(identifier: "like", title: "Like")], intentIdentifiers: [])
        ])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "chat"]), collapseID: "m1")
        try await runtime.expand("m1")
        let outcome = try await runtime.perform(actionIdentifier: "like", on: "m1")
        #expect(outcome.contentExtensionOption == nil)
        #expect(outcome.deliveredToApp)
        #expect(delegate.responses.withLock { $0.map(\.1) } == ["like"])
    }

    @Test("a new notification of the same thread reaches the visible interface again")
    func didReceiveAgain() async throws {
        let registration = ContentExtensionRegistration(attributes: ContentExtensionAttributes(categories: ["chat"], initialContentSizeRatio: 1)) {
            RespondingController(option: .dismiss)
        }
        let runtime = try await makeRuntime(contentExtensions: [registration])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "chat", "thread-id": "t"]), collapseID: "m1")
        try await runtime.expand("m1")
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "chat", "thread-id": "t"]), collapseID: "m2")
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "chat", "thread-id": "other"]), collapseID: "m3")
        #expect(await runtime.expandedRendering?.lines == ["received 2 notification(s)"])
        #expect(await runtime.expandedRendering?.notificationIdentifier == "m2")
    }
}
