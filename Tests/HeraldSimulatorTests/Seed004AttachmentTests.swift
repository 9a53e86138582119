import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 004 ("iOS 10.0 UserNotification 介绍"): a remote notification with mutable-content and the
// image URL in the payload's "image" key; the service extension downloads it with URLSession and
// attaches it. Here the image comes from a real HTTP server on 127.0.0.1.
@Suite("Seed 004 on a simulated device: the attachment named in the payload", .tier(.inProcess))
struct Seed004AttachmentTests {
    static let bundleID = Seed004.bundleID

    static let manifest = Seed004.manifest()

    static func payload(image: String) -> String { Seed004.payload(image: image) }

    @Test("the extension downloads the image from a real HTTP server and the notification shows it")
    func download() async throws {
        // Served as ".jpg" but the bytes are PNG: the runtime recognises the type from the content.
        let server = try LocalHTTPServer(routes: ["/cover.jpg": .init(status: 200, contentType: "image/jpeg", body: Data(SeedFixture.png))])
        defer { server.stop() }
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(push(Self.payload(image: "http://127.0.0.1:\(server.port)/cover.jpg"), to: Self.bundleID))
        #expect(server.requestedPaths == ["/cover.jpg"])
        #expect(reports.events == ["modified", "displayed"])
        let step = try #require(reports.first(.modified)?.detail["steps"]?.arrayValue?.first?.objectValue)
        #expect(step["result"] == .string("applied"))
        #expect(step["type"] == .string("public.png"))
        let attachment = try #require(reports.first(.displayed)?.detail["attachments"]?.arrayValue?.first?.objectValue)
        #expect(attachment["identifier"] == .string("image"))
        #expect(attachment["type"] == .string("public.png"))
        #expect(attachment["size"] == .int(SeedFixture.png.count))

        let note = try #require(await device.snapshot().apps.first?.center.threads.first?.notifications.first)
        #expect(note.attachments.first?.type == "public.png")
        #expect(note.categoryIdentifier == "InputSomething")
    }

    @Test("a failed download shows the notification without an attachment")
    func notFound() async throws {
        let server = try LocalHTTPServer(routes: [:])
        defer { server.stop() }
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(push(Self.payload(image: "http://127.0.0.1:\(server.port)/missing.png"), to: Self.bundleID))
        let step = try #require(reports.first(.modified)?.detail["steps"]?.arrayValue?.first?.objectValue)
        #expect(step["result"] == .string("failed"))
        #expect(step["message"]?.stringValue?.contains("404") == true)
        #expect(reports.first(.displayed)?.detail["attachments"] == .array([]))
    }

    @Test("only http and https are downloaded")
    func refusesOtherSchemes() async throws {
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(push(Self.payload(image: "file:///etc/passwd"), to: Self.bundleID))
        let step = try #require(reports.first(.modified)?.detail["steps"]?.arrayValue?.first?.objectValue)
        #expect(step["result"] == .string("refused"))
        #expect(reports.first(.displayed)?.detail["attachments"] == .array([]))
    }

    @Test("a body over the limit is refused")
    func bodyLimit() async throws {
        let server = try LocalHTTPServer(routes: ["/big.png": .init(status: 200, contentType: "image/png", body: Data(SeedFixture.png))])
        defer { server.stop() }
        let device = try await makeDevice(Seed004.manifest(maximumBytes: 10))
        let reports = await device.receive(push(Self.payload(image: "http://127.0.0.1:\(server.port)/big.png"), to: Self.bundleID))
        let step = try #require(reports.first(.modified)?.detail["steps"]?.arrayValue?.first?.objectValue)
        #expect(step["result"] == .string("failed"))
        #expect(reports.first(.displayed)?.detail["attachments"] == .array([]))
    }

    @Test("the seed's category shows its three actions, the comment action with a text field")
    func categories() async throws {
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(
            push(Seed004.categoryPayload, to: Self.bundleID, collapseID: "c")
        )
        let actions = try #require(reports.first(.displayed)?.detail["actions"]?.arrayValue)
        #expect(actions.compactMap { $0.objectValue?["title"]?.stringValue } == ["写评论", "点赞", "取消"])
        let action = try #require(try await device.perform("comment", on: "c", in: Self.bundleID, text: "好文章").first(.action))
        #expect(action.string("text") == "好文章")
        #expect(action.string("stateAfter") == "foreground")
    }
}
