import Foundation
import HeraldCore
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

@testable import HeraldDeviceHost

// Seed 004 ("iOS 10.0 UserNotification 介绍") through a real server: the provider sends a mutable alert with the
// image URL under "image"; the service extension downloads it (URLSession, from a real HTTP server on
// 127.0.0.1) and attaches it; the runtime checks the type and the size limit (image 10 MB, audio 5 MB, video
// 50 MB). The seed's categories give the comment action a text field.
@Suite("Seed 004 end to end: the attachment named in the payload, its limits, and the seed's actions", .serialized, .tier(.inProcess))
struct Seed004ServerTests {
    static let app = Seed004.bundleID

    static func manifest(maximumBytes: Int? = nil) -> String {
        Seed004.manifest(name: "Gallery phone", maximumBytes: maximumBytes)
    }

    static func payload(image: String) -> String { Seed004.payload(image: image) }

    /// Sends the seed's payload naming `image`, and returns the `modified` step and the trace's `displayed` event.
    static func sendImage(
        _ image: String,
        _ server: HeraldTestServer,
        _ phone: TestDevice,
        _ provider: SeedProvider
    ) async throws -> (step: [String: HeraldUserNotifications.JSONValue], displayed: TraceEvent, apnsID: String) {
        let apnsID = try await provider.send(payload(image: image), to: phone.token(for: app))
        try await phone.expectNotification(in: app, within: .seconds(20), "with the seed's body") { $0.body == "IOS10 推送测试" }
        try await server.expectDelivered(apnsID, reporting: [.modified, .displayed], within: .seconds(20))
        let modified = try await server.expectTraceEvent(.modified, of: apnsID)
        let step = try #require(modified.detail["steps"]?.arrayValue?.first?.dictionaryValue)
        return (step, try await server.expectTraceEvent(.displayed, of: apnsID), apnsID)
    }

    @Test("the extension downloads the image from a real HTTP server and the notification shows it")
    func download() async throws {
        // Served as ".jpg" but the bytes are PNG: the runtime recognises the type from the content.
        let images = try LocalHTTPServer(routes: ["/cover.jpg": .init(status: 200, contentType: "image/jpeg", body: Data(SeedFixture.png))])
        defer { images.stop() }
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let (step, displayed, _) = try await Self.sendImage("http://127.0.0.1:\(images.port)/cover.jpg", server, phone, provider)
            #expect(images.requestedPaths == ["/cover.jpg"])
            #expect(step["result"] == .string("applied"))
            #expect(step["type"] == .string("public.png"))
            let attachment = try #require(displayed.detail["attachments"]?.arrayValue?.first?.objectValue)
            #expect(attachment["identifier"] == .string("image"))
            #expect(attachment["type"] == .string("public.png"))
            #expect(attachment["size"] == .int(SeedFixture.png.count))

            let shown = try #require(await phone.notifications(in: Self.app).first)
            #expect(shown.body == "IOS10 推送测试")
            #expect(shown.attachments.map(\.type) == ["public.png"])
            #expect(shown.attachments.first?.size == SeedFixture.png.count)
            #expect(shown.categoryIdentifier == "InputSomething")
            #expect(try await phone.app(Self.app).center.badge == 1)

            // The thumbnail travels with the screen, so the web console draws the image itself.
            let thumbnail = "data:image/png;base64," + Data(SeedFixture.png).base64EncodedString()
            #expect(shown.attachments.first?.thumbnail == thumbnail)
            #expect(try await Self.screenThumbnail(server, phone) == thumbnail)

            // A screen too large with its thumbnails goes without them rather than not at all.
            let encoder = JSONEncoder()
            let snapshot = await phone.snapshot()
            let full = try #require(ScreenSender.screenJSON(snapshot, encoder: encoder))
            #expect(String(decoding: full, as: UTF8.self).contains("base64"))
            let bare = try #require(ScreenSender.screenJSON(snapshot, encoder: encoder, limit: full.count))
            #expect(!String(decoding: bare, as: UTF8.self).contains("base64") && bare.count < full.count)
            #expect(ScreenSender.screenJSON(snapshot, encoder: encoder, limit: 64) == nil)
        }
    }

    /// The first attachment's thumbnail on the device's screen as the web console gets it (waits up to 10 s for
    /// the screen that shows the notification).
    static func screenThumbnail(_ server: HeraldTestServer, _ phone: TestDevice) async throws -> String? {
        let attachment = try await eventually("an attachment on the screen of \(phone.id)", every: .milliseconds(50)) { () -> [String: Any]? in
            let screen = try await ConsoleHTTP.get(server.inspectionURL, "devices/\(phone.id)/screen").object?["screen"] as? [String: Any]
            let apps = screen?["apps"] as? [[String: Any]] ?? []
            let center = apps.first { $0["bundleID"] as? String == app }?["center"] as? [String: Any]
            let notes = (center?["threads"] as? [[String: Any]] ?? []).flatMap { $0["notifications"] as? [[String: Any]] ?? [] }
            return (notes.first?["attachments"] as? [[String: Any]])?.first
        }
        return attachment["thumbnail"] as? String
    }

    @Test("the seed's first payload: title, subtitle and body, sound, badge, and the image attached")
    func seedPayload() async throws {
        let images = try LocalHTTPServer(routes: ["/background-cover.png": .init(status: 200, contentType: "image/png", body: Data(SeedFixture.png))])
        defer { images.stop() }
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let payload = """
                {"aps":{"alert":{"title":"message","subtitle":"brief message","body":"Your message Here"},\
                "sound":"default","badge":1,"mutable-content":1},"image":"http://127.0.0.1:\(images.port)/background-cover.png"}
                """
            let apnsID = try await provider.send(payload, to: phone.token(for: Self.app))
            let shown = try await phone.expectNotification(titled: "message", in: Self.app, within: .seconds(20))
            #expect(shown.subtitle == "brief message")
            #expect(shown.body == "Your message Here")
            #expect(shown.sound == "default")
            #expect(shown.badge == 1)
            #expect(shown.attachments.map(\.identifier) == ["image"])
            let displayed = try await server.expectTraceEvent(.displayed, of: apnsID, within: .seconds(10))
            #expect(displayed.detail["subtitle"] == .string("brief message"))
            #expect(displayed.detail["attachments"]?.arrayValue?.count == 1)
            try await server.expectState(of: apnsID, is: .delivered)
        }
    }

    @Test("a failed download (404) shows the notification without an attachment")
    func notFound() async throws {
        let images = try LocalHTTPServer(routes: [:])
        defer { images.stop() }
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let (step, displayed, _) = try await Self.sendImage("http://127.0.0.1:\(images.port)/missing.png", server, phone, provider)
            #expect(step["result"] == .string("failed"))
            #expect(step["message"]?.stringValue?.contains("404") == true)
            #expect(displayed.detail["attachments"] == .array([]))
            #expect(await phone.notifications(in: Self.app).first?.attachments.isEmpty == true)
        }
    }

    @Test("only http and https are downloaded: a file URL is refused")
    func refusesOtherSchemes() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let (step, displayed, _) = try await Self.sendImage("file:///etc/passwd", server, phone, provider)
            #expect(step["result"] == .string("refused"))
            #expect(displayed.detail["attachments"] == .array([]))
        }
    }

    @Test("a body over the extension's limit is not attached")
    func bodyLimit() async throws {
        let images = try LocalHTTPServer(routes: ["/big.png": .init(status: 200, contentType: "image/png", body: Data(SeedFixture.png))])
        defer { images.stop() }
        try await withSeed(manifest: Self.manifest(maximumBytes: 10), topic: Self.app) { server, phone, provider in
            let (step, displayed, _) = try await Self.sendImage("http://127.0.0.1:\(images.port)/big.png", server, phone, provider)
            #expect(step["result"] == .string("failed"))
            #expect(displayed.detail["attachments"] == .array([]))
        }
    }

    @Test("an image over the 10 MB limit for images is rejected by the system; the notification shows without it")
    func imageSizeLimit() async throws {
        let big = Data(SeedFixture.png + [UInt8](repeating: 0, count: 10 * 1_048_576 + 1 - SeedFixture.png.count))
        let images = try LocalHTTPServer(routes: ["/huge.png": .init(status: 200, contentType: "image/png", body: big)])
        defer { images.stop() }
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let (step, displayed, _) = try await Self.sendImage("http://127.0.0.1:\(images.port)/huge.png", server, phone, provider)
            #expect(step["result"] == .string("rejected"))
            #expect(step["message"]?.stringValue?.contains("exceeds") == true, "\(step)")
            #expect(displayed.detail["attachments"] == .array([]))
            #expect(await phone.notifications(in: Self.app).first?.attachments.isEmpty == true)
        }
    }

    @Test("the seed's category shows its three actions; the comment action sends the typed text and opens the app")
    func categoryActions() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(
                Seed004.categoryPayload,
                to: phone.token(for: Self.app),
                collapseID: "c"
            )
            let shown = try await phone.expectNotification(in: Self.app, within: .seconds(10), "with body Test message!") {
                $0.body == "Test message!"
            }
            #expect(shown.actions.map(\.title) == ["写评论", "点赞", "取消"])
            #expect(shown.actions.first?.textInputPlaceholder == "写点什么吧")
            let displayed = try await server.expectTraceEvent(.displayed, of: apnsID)
            #expect(displayed.detail["actions"]?.arrayValue?.compactMap { $0.objectValue?["title"]?.stringValue } == ["写评论", "点赞", "取消"])

            try await phone.perform("comment", on: "c", in: Self.app, text: "好文章")
            let action = try await server.expectTraceEvent(.action, of: apnsID)
            #expect(action.detail["text"] == .string("好文章"))
            #expect(action.detail["stateAfter"] == .string("foreground"))
            #expect(try await phone.callbacks(in: Self.app).contains(.didReceiveResponse))
            try await phone.expectNotificationRemoved("c", in: Self.app)
        }
    }
}
