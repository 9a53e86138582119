import Foundation
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Seed 004 ("iOS 10.0 UserNotification 介绍"). Its Swift samples, inside a namespace. Changes
// other than the import: `Bundle.main` is a fixture bundle written at run time (a test has no
// app bundle); the seed's `downloadAndSave` placeholder ("save locally after the download and
// return the local url") is filled in; and its `handler` is `@Sendable`, which Swift 6 requires
// of a closure called from URLSession's `@Sendable` completion handler.
enum Seed004 {
    enum myNotificationAction: String {
        case comment
        case zan
        case cancel
    }

    enum UserNotificationCategoryType: String {
        case myNotificationCategory = "myCatrgory"
    }

    static func registerCategories() {
        let inputCatrgory = UNNotificationCategory(identifier: "InputSomething", actions: [], intentIdentifiers: [], options: [])

        let myCatrgory: UNNotificationCategory = {

            let commentAction = UNTextInputNotificationAction(
                identifier: myNotificationAction.comment.rawValue,
                title: "写评论",
                options: [.foreground],
                textInputButtonTitle: "发送",
                textInputPlaceholder: "写点什么吧"
            )

            let zanAction = UNNotificationAction(
                identifier: myNotificationAction.zan.rawValue,
                title: "点赞",
                options: [.foreground]
            )

            let cancelAction = UNNotificationAction(
                identifier: myNotificationAction.cancel.rawValue,
                title: "取消",
                options: [.destructive]
            )

            return UNNotificationCategory(
                identifier: UserNotificationCategoryType.myNotificationCategory.rawValue,
                actions: [commentAction, zanAction, cancelAction],
                intentIdentifiers: [],
                options: []
            )
        }()

        UNUserNotificationCenter.current().setNotificationCategories([inputCatrgory, myCatrgory])
    }

    static func scheduleImageLocal(bundle: Bundle) {
        if #available(iOS 10.0, *) {
            let content = UNMutableNotificationContent()
            content.title = "iOS10 推送测试"
            content.body = "附件"
            content.userInfo = ["icon": "1", "mutable-content": 1]
            content.categoryIdentifier = "InputSomething"

            let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 3, repeats: false)

            let requestIdentifier = "imageLocal"
            if let imageURL = bundle.url(forResource: "avatar@2x", withExtension: "png"),
                let attachment = try? UNNotificationAttachment(identifier: "imageAttachment", url: imageURL, options: nil)
            {

                content.attachments = [attachment]
            }

            let request = UNNotificationRequest(identifier: requestIdentifier, content: content, trigger: trigger)

            UNUserNotificationCenter.current().add(
                request,
                withCompletionHandler: { (error) in
                    if error != nil {
                        print("error: \(error.debugDescription)")
                    }
                }
            )
        }
    }

    /// The seed's service extension: read the media URL from userInfo, download, attach.
    class NotificationService: UNNotificationServiceExtension {
        var contentHandler: ((UNNotificationContent) -> Void)?
        var bestAttemptContent: UNMutableNotificationContent?

        override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void
        ) {
            self.contentHandler = contentHandler
            bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
            guard let bestAttemptContent, let image = request.content.userInfo["image"] as? String, let url = URL(string: image) else {
                contentHandler(request.content)
                return
            }
            downloadAndSave(url: url) { localURL in
                if let localURL, let attachment = try? UNNotificationAttachment(identifier: "image", url: localURL, options: nil) {
                    bestAttemptContent.attachments = [attachment]
                }
                contentHandler(bestAttemptContent)
            }
        }

        override func serviceExtensionTimeWillExpire() {
            if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
        }

        private func downloadAndSave(url: URL, handler: @escaping @Sendable (_ localURL: URL?) -> Void) {
            let task = URLSession.shared.dataTask(
                with: url,
                completionHandler: {
                    data,
                    res,
                    error in

                    var localURL: URL? = nil
                    if let data, error == nil {
                        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(url.lastPathComponent)")
                        if (try? data.write(to: file)) != nil { localURL = file }
                    }

                    handler(localURL)
                }
            )

            task.resume()
        }
    }

    /// The fixture "app bundle" holding avatar@2x.png.
    static func makeBundle() -> (Bundle, URL) {
        let directory = Fixture.directory().appendingPathComponent("App.app", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = Fixture.file("avatar@2x.png", Fixture.png, in: directory)
        return (Bundle(url: directory)!, directory)
    }
}

@Suite("Seed 004: categories, attachments and downloads", .tier(.inProcess))
struct Seed004UserNotificationTests {
    @Test("the seed's categories are registered and their actions shown for a matching payload")
    func categories() async throws {
        let runtime = try await makeRuntime()
        runtime.withCurrentCenter { Seed004.registerCategories() }
        let categories = await runtime.center.notificationCategories()
        #expect(Set(categories.map(\.identifier)) == ["InputSomething", "myCatrgory"])

        _ = try await runtime.receiveRemoteNotification(
            ["aps": ["alert": "Test message!", "sound": "default", "category": "myCatrgory"]],
            collapseID: "c"
        )
        let note = try #require(await runtime.snapshot().threads.first?.notifications.first)
        #expect(note.actions.map(\.title) == ["写评论", "点赞", "取消"])
        #expect(note.actions.first?.textInputPlaceholder == "写点什么吧")
        #expect(note.actions.last?.options == UNNotificationActionOptions.destructive.rawValue)
    }

    @Test("the comment action delivers a text response and brings the app to the foreground")
    func textInput() async throws {
        let delegate = RecordingCenterDelegate()
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(appDelegate: { app })
        runtime.withCurrentCenter { Seed004.registerCategories() }
        _ = try await runtime.receiveRemoteNotification(["aps": ["alert": "Test message!", "category": "myCatrgory"]], collapseID: "c")
        await #expect(throws: InteractionError.self) { try await runtime.perform(actionIdentifier: "comment", on: "c") }
        let outcome = try await runtime.perform(actionIdentifier: "comment", on: "c", userText: "好文章")
        #expect(outcome.stateAfter == .foreground)
        #expect(outcome.appCalls.first == .didFinishLaunching)
        #expect(delegate.responses.withLock { $0.first?.2 } == "好文章")
        #expect(await runtime.center.deliveredNotifications().isEmpty)
    }

    @Test("the local image notification fires after 3 s with its attachment copied from the bundle")
    func localAttachment() async throws {
        let clock = ManualNotificationClock()
        let (bundle, bundleDirectory) = Seed004.makeBundle()
        let runtime = try await makeRuntime(clock: clock, configure: { $0.center.bundleDirectory = bundleDirectory })
        runtime.withCurrentCenter {
            Seed004.registerCategories()
            Seed004.scheduleImageLocal(bundle: bundle)
        }
        let pending = await runtime.center.pendingNotificationRequests()
        #expect(pending.map(\.identifier) == ["imageLocal"])
        let stored = try #require(pending.first?.content.attachments.first)
        #expect(stored.url != bundle.url(forResource: "avatar@2x", withExtension: "png"))
        #expect(FileManager.default.fileExists(atPath: bundleDirectory.appendingPathComponent("avatar@2x.png").path))

        clock.advance(by: 2)
        #expect(await runtime.fireDueNotifications().isEmpty)
        clock.advance(by: 1)
        #expect(await runtime.fireDueNotifications() == ["imageLocal"])
        let delivered = try #require(await runtime.center.deliveredNotifications().first)
        #expect(delivered.request.content.attachments.first?.type == "public.png")
        #expect(delivered.request.content.userInfo["icon"] as? String == "1")
        #expect(await runtime.center.pendingNotificationRequests().isEmpty)
    }

    @Test("the service extension downloads the payload's image with URLSession from a real HTTP server")
    func remoteDownload() async throws {
        // Served as ".jpg" but the bytes are PNG: an image's format comes from its bytes.
        let server = try LocalHTTPServer(routes: [
            "/cover.jpg": .init(status: 200, contentType: "image/jpeg", body: Data(Fixture.png))
        ])
        defer { server.stop() }
        let runtime = try await makeRuntime(serviceExtension: { Seed004.NotificationService() })
        let payload: [String: Any] = [
            "aps": ["alert": "IOS10 推送测试", "sound": "default", "badge": 1, "mutable-content": 1, "category": "InputSomething"],
            "image": "http://127.0.0.1:\(server.port)/cover.jpg",
        ]
        let outcome = try await runtime.receiveRemoteNotification(payload, collapseID: "remote-image")
        #expect(outcome.serviceExtension == .completed)
        #expect(server.requestedPaths == ["/cover.jpg"])
        let attachment = try #require(await runtime.center.deliveredNotifications().first?.request.content.attachments.first)
        #expect(attachment.type == "public.png")
        #expect(attachment.url.path.contains("herald-attachments"))
        #expect(runtime.center.badgeCount == 1)
    }

    @Test("a failed download shows the notification without an attachment")
    func failedDownload() async throws {
        let server = try LocalHTTPServer(routes: [:])
        defer { server.stop() }
        let runtime = try await makeRuntime(serviceExtension: { Seed004.NotificationService() })
        let payload: [String: Any] = [
            "aps": ["alert": "x", "mutable-content": 1], "image": "http://127.0.0.1:\(server.port)/missing.png",
        ]
        let outcome = try await runtime.receiveRemoteNotification(payload, collapseID: "r")
        #expect(outcome.serviceExtension == .completed)
        #expect(outcome.displayedContent?.attachments.isEmpty == true)
    }
}
