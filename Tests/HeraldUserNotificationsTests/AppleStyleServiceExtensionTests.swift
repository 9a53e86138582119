import Foundation
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A service extension as SDKs write it for Swift 6 (docs/device-runtime.md, "What unchanged means"): a `@Sendable`
/// content handler (Airship's declares it so), a `Task` that downloads with `URLSession`, the response's file name,
/// and a type hint from the MIME type when the name has no extension (as Airship's extension does).
final class AppleStyleMediaService: UNNotificationServiceExtension {
    private var contentHandler: (@Sendable (UNNotificationContent) -> Void)?
    private var bestAttemptContent: UNMutableNotificationContent?
    private var download: Task<Void, Never>?

    static let mimeTypes = ["image/jpeg": "public.jpeg", "image/png": "public.png", "image/gif": "com.compuserve.gif"]

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void)
    {
        self.contentHandler = contentHandler
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            contentHandler(request.content)
            return
        }
        bestAttemptContent = content
        content.threadIdentifier = request.content.userInfo["conversation"] as? String ?? ""
        if request.content.userInfo["urgent"] as? Bool == true { content.interruptionLevel = .timeSensitive }
        guard let text = request.content.userInfo["media-url"] as? String, let url = URL(string: text) else {
            contentHandler(content)
            return
        }
        download = Task { await AppleStyleMediaService.attach(url, to: content, then: contentHandler) }
    }

    override func serviceExtensionTimeWillExpire() {
        download?.cancel()
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }

    private static func attach(_ url: URL, to content: UNMutableNotificationContent, then handler: @Sendable (UNNotificationContent) -> Void) async {
        if let attachment = try? await attachment(from: url) { content.attachments = [attachment] }
        handler(content)
    }

    private static func attachment(from url: URL) async throws -> UNNotificationAttachment {
        let (file, response) = try await URLSession.shared.download(from: url)
        let name = response.suggestedFilename ?? url.lastPathComponent
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try FileManager.default.moveItem(at: file, to: destination)
        var options: [AnyHashable: Any] = [:]
        if destination.pathExtension.isEmpty, let hint = response.mimeType.flatMap({ mimeTypes[$0] }) {
            options[UNNotificationAttachmentOptionsTypeHintKey] = hint
        }
        return try UNNotificationAttachment(identifier: "media", url: destination, options: options)
    }
}

@Suite("An Apple-style service extension on a simulated device, its media served locally", .tier(.unit))
struct AppleStyleServiceExtensionTests {
    static func payload(_ url: String, extra: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "aps": ["alert": ["title": "Ana", "body": "sent a photo"], "mutable-content": 1, "category": "message"],
            "media-url": url, "conversation": "chat-7",
        ]
        payload.merge(extra) { $1 }
        return payload
    }

    @Test("the image is downloaded and attached; thread and interruption level are set")
    func attachesImage() async throws {
        let server = try LocalHTTPServer(routes: ["/photos/1.jpg": .init(status: 200, contentType: "image/jpeg", body: Data(Fixture.jpeg))])
        defer { server.stop() }
        let runtime = try await makeRuntime(serviceExtension: { AppleStyleMediaService() })
        let outcome = try await runtime.receiveRemoteNotification(
            Self.payload("http://127.0.0.1:\(server.port)/photos/1.jpg", extra: ["urgent": true]),
            collapseID: "m1"
        )
        #expect(outcome.serviceExtension == .completed)
        let shown = try #require(outcome.displayedContent)
        #expect(shown.attachments.first?.type == "public.jpeg")
        #expect(shown.threadIdentifier == "chat-7")
        #expect(shown.interruptionLevel == .timeSensitive)
    }

    @Test("a URL without an extension needs the MIME type's hint, as on iOS")
    func extensionlessURL() async throws {
        let server = try LocalHTTPServer(routes: ["/media/abc123": .init(status: 200, contentType: "image/png", body: Data(Fixture.png))])
        defer { server.stop() }
        let runtime = try await makeRuntime(serviceExtension: { AppleStyleMediaService() })
        let outcome = try await runtime.receiveRemoteNotification(Self.payload("http://127.0.0.1:\(server.port)/media/abc123"), collapseID: "m2")
        #expect(outcome.serviceExtension == .completed)
        #expect(outcome.displayedContent?.attachments.first?.type == "public.png")
    }

    @Test("a missing image still shows the text")
    func missingImage() async throws {
        let server = try LocalHTTPServer(routes: [:])
        defer { server.stop() }
        let runtime = try await makeRuntime(serviceExtension: { AppleStyleMediaService() })
        let outcome = try await runtime.receiveRemoteNotification(Self.payload("http://127.0.0.1:\(server.port)/gone.jpg"), collapseID: "m3")
        #expect(outcome.serviceExtension == .completed)
        #expect(outcome.displayedContent?.body == "sent a photo")
    }
}
