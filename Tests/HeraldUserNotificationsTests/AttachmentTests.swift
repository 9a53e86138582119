import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@Suite("Attachments", .tier(.unit))
struct AttachmentTests {
    @Test("the type comes from the type hint, else the file name's extension, never from the bytes alone")
    func typeFromNameOrHint() throws {
        let cases: [(String, [UInt8], String)] = [
            ("photo.png", Fixture.png, "public.png"),
            ("PHOTO.JPG", Fixture.jpeg, "public.jpeg"),
            ("photo.png", Fixture.jpeg, "public.jpeg"),  // an image of another image format still decodes
            ("a.gif", Fixture.gif, "com.compuserve.gif"),
            ("b.wav", Fixture.wav, "com.microsoft.waveform-audio"),
            ("c.mp3", Fixture.mp3, "public.mp3"),
            ("d.mp4", Fixture.mp4, "public.mpeg-4"),
            ("e.aiff", Array("FORM".utf8) + [0, 0, 0, 4] + Array("AIFF".utf8), "public.aiff-audio"),
        ]
        for (name, bytes, uti) in cases {
            let attachment = try UNNotificationAttachment(identifier: name, url: Fixture.file(name, bytes))
            #expect(attachment.type == uti)
        }
        // Apple: "If you don't include this key, the system uses the attachment's filename extension."
        #expect(throws: UNError(.attachmentUnrecognizedType, reason: "no supported type hint or file extension: download")) {
            try UNNotificationAttachment(identifier: "x", url: Fixture.file("download", Fixture.png))
        }
        #expect(throws: UNError(.attachmentUnrecognizedType, reason: "no supported type hint or file extension: a.bin")) {
            try UNNotificationAttachment(identifier: "x", url: Fixture.file("a.bin", Fixture.gif))
        }
        let hinted = try UNNotificationAttachment(
            identifier: "h",
            url: Fixture.file("download", Fixture.png),
            options: [UNNotificationAttachmentOptionsTypeHintKey: "public.png"]
        )
        #expect(hinted.type == "public.png")
        #expect(throws: UNError(.attachmentCorrupt, reason: "image.png is not a valid public.png")) {
            try UNNotificationAttachment(identifier: "x", url: Fixture.file("image.png", Array("hello".utf8)))
        }
    }

    @Test("only readable file URLs are accepted")
    func fileURLOnly() throws {
        #expect(throws: UNError.self) { try UNNotificationAttachment(identifier: "w", url: URL(string: "https://example.com/a.png")!) }
        do {
            _ = try UNNotificationAttachment(identifier: "m", url: URL(fileURLWithPath: "/nonexistent/a.png"))
            Issue.record("expected an error")
        } catch let error as UNError {
            #expect(error.code == .attachmentInvalidURL)
        }
    }

    @Test("size limits: image 10 MB, audio 5 MB, video 50 MB; empty files are refused")
    func sizeLimits() throws {
        let megabyte = 1_048_576
        #expect(try UNNotificationAttachment(identifier: "i", url: Fixture.file("i.png", Fixture.png, padTo: 10 * megabyte)).type == "public.png")
        for (name, bytes, limit) in [("big.png", Fixture.png, 10), ("big.wav", Fixture.wav, 5), ("big.mp4", Fixture.mp4, 50)] {
            do {
                _ = try UNNotificationAttachment(identifier: "big", url: Fixture.file(name, bytes, padTo: limit * megabyte + 1))
                Issue.record("expected a size error at \(limit) MB")
            } catch UNError.attachmentInvalidFileSize {
            }
        }
        #expect(try UNNotificationAttachment(identifier: "a", url: Fixture.file("a.wav", Fixture.wav, padTo: 5 * megabyte)).fileSize == 5 * megabyte)
        #expect(throws: UNError(.attachmentInvalidFileSize, reason: "empty file")) {
            try UNNotificationAttachment(identifier: "e", url: Fixture.file("e.png", []))
        }
    }

    @Test("a truncated image is corrupt")
    func corrupt() throws {
        #expect(throws: UNError(.attachmentCorrupt, reason: "broken.png is not a valid public.png")) {
            try UNNotificationAttachment(identifier: "c", url: Fixture.file("broken.png", Array(Fixture.png.prefix(10))))
        }
    }

    @Test("option keys: thumbnail hidden, clipping rect, thumbnail time; wrong values are ignored")
    func options() throws {
        let url = Fixture.file("o.gif", Fixture.gif)
        let attachment = try UNNotificationAttachment(
            identifier: "",
            url: url,
            options: [
                UNNotificationAttachmentOptionsThumbnailHiddenKey: true,
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: ["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5],
                UNNotificationAttachmentOptionsThumbnailTimeKey: 3,
            ]
        )
        #expect(!attachment.identifier.isEmpty)
        #expect(attachment.attachmentOptions.thumbnailHidden)
        #expect(attachment.attachmentOptions.thumbnailClippingRect == [0.25, 0.25, 0.5, 0.5])
        #expect(attachment.attachmentOptions.thumbnailTime == 3)
        let movie = try UNNotificationAttachment(
            identifier: "m",
            url: Fixture.file("m.mp4", Fixture.mp4),
            options: [
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: CGRect(x: 0.5, y: 0.5, width: 0.75, height: 0.1),
                UNNotificationAttachmentOptionsThumbnailTimeKey: ["value": 90, "timescale": 30],
            ]
        )
        #expect(movie.attachmentOptions.thumbnailClippingRect == nil)
        #expect(movie.attachmentOptions.thumbnailTime == 3)
    }

    @Test("adding a request moves the file into the center's store; removing the notification deletes it")
    func movedIntoStore() async throws {
        let runtime = try await makeRuntime()
        let source = Fixture.file("pic.png", Fixture.png)
        let content = UNMutableNotificationContent()
        content.title = "photo"
        content.attachments = [try UNNotificationAttachment(identifier: "p", url: source)]
        try await runtime.center.add(UNNotificationRequest(identifier: "n", content: content, trigger: nil))
        #expect(!FileManager.default.fileExists(atPath: source.path))
        let stored = try #require(await runtime.center.pendingNotificationRequests().first?.content.attachments.first?.url)
        #expect(FileManager.default.fileExists(atPath: stored.path))
        await runtime.fireDueNotifications()
        #expect(await runtime.snapshot().threads.first?.notifications.first?.attachments.first?.fileName == "pic.png")
        runtime.center.removeDeliveredNotifications(withIdentifiers: ["n"])
        #expect(!FileManager.default.fileExists(atPath: stored.path))
    }

    @Test("the snapshot carries small images as data: URLs for a console; not hidden thumbnails, large images or sounds")
    func thumbnails() async throws {
        let runtime = try await makeRuntime()
        // A JPEG one byte over the limit: the fixture's header, zeros, and the end-of-image marker.
        let largeJPEG = Fixture.jpeg.dropLast(2) + [UInt8](repeating: 0, count: NotificationCenterSnapshot.thumbnailLimit) + [0xFF, 0xD9]
        let cases: [(name: String, bytes: [UInt8], options: [AnyHashable: Any], expected: String?)] = [
            ("small.png", Fixture.png, [:], "data:image/png;base64," + Data(Fixture.png).base64EncodedString()),
            ("small.gif", Fixture.gif, [:], "data:image/gif;base64," + Data(Fixture.gif).base64EncodedString()),
            ("hidden.png", Fixture.png, [UNNotificationAttachmentOptionsThumbnailHiddenKey: true], nil),
            ("large.jpg", largeJPEG, [:], nil),
            ("sound.wav", Fixture.wav, [:], nil),
        ]
        for (index, item) in cases.enumerated() {
            let content = UNMutableNotificationContent()
            content.title = item.name
            let url = Fixture.file(item.name, item.bytes)
            content.attachments = [try UNNotificationAttachment(identifier: item.name, url: url, options: item.options)]
            try await runtime.center.add(UNNotificationRequest(identifier: "n\(index)", content: content, trigger: nil))
        }
        await runtime.fireDueNotifications()
        let snapshot = await runtime.snapshot()
        let attachments = snapshot.threads.flatMap(\.notifications).flatMap(\.attachments)
        for item in cases {
            let attachment = try #require(attachments.first { $0.identifier == item.name }, "\(item.name)")
            #expect(attachment.thumbnail == item.expected, "\(item.name)")
        }
        #expect(snapshot.withoutThumbnails().threads.flatMap(\.notifications).flatMap(\.attachments).allSatisfy { $0.thumbnail == nil })
    }

    @Test("a request whose attachment file vanished is not scheduled")
    func vanishedFile() async throws {
        let runtime = try await makeRuntime()
        let source = Fixture.file("gone.png", Fixture.png)
        let content = UNMutableNotificationContent()
        content.title = "t"
        content.attachments = [try UNNotificationAttachment(identifier: "g", url: source)]
        try FileManager.default.removeItem(at: source)
        await #expect(throws: UNError.self) { try await runtime.center.add(UNNotificationRequest(identifier: "x", content: content, trigger: nil)) }
        #expect(await runtime.center.pendingNotificationRequests().isEmpty)
    }

    @Test("attachments a service extension adds are validated before display")
    func extensionAttachmentsValidated() async throws {
        final class SwappingService: UNNotificationServiceExtension {
            override func didReceive(
                _ request: UNNotificationRequest,
                withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void
            ) {
                let content = request.content.mutableCopy() as! UNMutableNotificationContent
                let good = Fixture.file("good.png", Fixture.png)
                let bad = Fixture.file("bad.png", Fixture.png)
                content.attachments = [
                    try! UNNotificationAttachment(identifier: "good", url: good),
                    try! UNNotificationAttachment(identifier: "bad", url: bad),
                ]
                try! Data("not an image any more".utf8).write(to: bad)
                contentHandler(content)
            }
        }
        let runtime = try await makeRuntime(serviceExtension: { SwappingService() })
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(aps: ["mutable-content": 1]), collapseID: "v")
        #expect(outcome.displayedContent?.attachments.map(\.identifier) == ["good"])
        #expect(await runtime.events.contains { $0.kind == .attachmentRejected && $0.detail.hasPrefix("bad") })
    }
}
