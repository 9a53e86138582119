import HeraldTestTiers
import Testing

@testable import HeraldConsole

@Suite("ConsoleAssets: the console's files built into the binary", .tier(.unit))
struct ConsoleAssetsTests {
    @Test("the page paths answer index.html; /console/<name> answers that file; anything else nil")
    func lookup() throws {
        for path in ["/", "/console", "/console/"] { #expect(ConsoleAssets.asset(at: path)?.name == "index.html", "\(path)") }
        #expect(ConsoleAssets.asset(at: "/console/console.js")?.name == "console.js")
        #expect(ConsoleAssets.asset(at: "/console/helpers.js")?.name == "helpers.js")
        #expect(ConsoleAssets.asset(at: "/console/faults.js")?.name == "faults.js")
        #expect(ConsoleAssets.asset(at: "/console/console.css")?.name == "console.css")
        for path in ["/console/nope.js", "/console.js", "/index.html", "", "/console//console.js", "/console/./console.js"] {
            #expect(ConsoleAssets.asset(at: path) == nil, "\(path)")
        }
        #expect(ConsoleAssets.isConsolePath("/console/nope.js"))
        #expect(!ConsoleAssets.isConsolePath("/consoles"))
        #expect(!ConsoleAssets.isConsolePath("/api/v1/console/send"))
    }

    @Test("each file has bytes, its content type and a strong tag that is the SHA-256 prefix of its bytes")
    func files() throws {
        let all = [ConsoleAssets.page] + ConsoleAssets.files.values
        #expect(Set(all.map(\.entityTag)).count == all.count, "tags are distinct")
        for asset in all {
            #expect(!asset.bytes.isEmpty, "\(asset.name)")
            #expect(asset.entityTag.wholeMatch(of: /"[0-9a-f]{32}"/) != nil, "\(asset.entityTag)")
            #expect(ConsoleAsset(name: asset.name, bytes: asset.bytes).entityTag == asset.entityTag, "the tag is a function of the bytes")
        }
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a396177a9cb410ff61f20015ad
        #expect(ConsoleAsset(name: "a.txt", bytes: Array("abc".utf8)).entityTag == "\"ba7816bf8f01cfea414140de5dae2223\"")
        #expect(ConsoleAsset(name: "x.css", bytes: [1]).entityTag != ConsoleAsset(name: "x.css", bytes: [2]).entityTag)
    }

    @Test(
        "content types by extension",
        arguments: [
            ("index.html", "text/html; charset=utf-8"), ("a.css", "text/css; charset=utf-8"), ("a.js", "text/javascript; charset=utf-8"),
            ("a.mjs", "text/javascript; charset=utf-8"), ("a.svg", "image/svg+xml"), ("a.json", "application/json"),
            ("a.bin", "application/octet-stream"), ("noextension", "application/octet-stream"),
        ]
    )
    func contentTypes(name: String, contentType: String) {
        #expect(ConsoleAsset.contentType(forName: name) == contentType)
    }

    @Test("If-None-Match: *, the tag, a list with it, its weak form match; other tags and empty values do not")
    func ifNoneMatch() {
        let asset = ConsoleAsset(name: "a.js", bytes: Array("x".utf8))
        let tag = asset.entityTag
        for value in ["*", tag, "W/\(tag)", "\"a\", \(tag)", " \(tag) ", "\"a\",\(tag),\"b\""] {
            #expect(asset.isMatched(byIfNoneMatch: value), "\(value)")
        }
        for value in ["", "\"a\"", String(tag.dropFirst().dropLast()), "\"a\", \"b\"", "W/\"a\"", ","] {
            #expect(!asset.isMatched(byIfNoneMatch: value), "\(value)")
        }
    }

    @Test("the page is HTML5 with the browser test's handles; the scripts are ES modules with no inline styles")
    func contents() throws {
        let page = String(decoding: ConsoleAssets.page.bytes, as: UTF8.self)
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains(#"data-testid="send-form""#))
        let script = String(decoding: try #require(ConsoleAssets.asset(at: "/console/console.js")).bytes, as: UTF8.self)
        #expect(script.contains("from './helpers.js'"))
        #expect(script.contains("from './faults.js'"))
        let helpers = String(decoding: try #require(ConsoleAssets.asset(at: "/console/helpers.js")).bytes, as: UTF8.self)
        #expect(helpers.contains("export function el("))
        let faults = String(decoding: try #require(ConsoleAssets.asset(at: "/console/faults.js")).bytes, as: UTF8.self)
        #expect(faults.contains("export async function refreshFaults("))
        #expect(page.contains(#"data-testid="faults-panel""#))
        let channels = String(decoding: try #require(ConsoleAssets.asset(at: "/console/channels.js")).bytes, as: UTF8.self)
        #expect(channels.contains("export async function refreshChannels("))
        #expect(page.contains(#"data-testid="channels-panel""#))
    }

    @Test("web apps: the device view draws the screen's webApps, a Mac for Safari alone, and taps them with the origin for the app")
    func webApps() throws {
        let script = String(decoding: try #require(ConsoleAssets.asset(at: "/console/console.js")).bytes, as: UTF8.self)
        // The screen's member (ScreenSender.screenJSON) and WebApp.screen()'s kinds, as the device writes them.
        #expect(script.contains("screen?.webApps"))
        #expect(script.contains("w.kind === 'safari'"))
        // A tap and × are the device link's `tap` and `dismiss` naming the web app by its origin (LinkedDevice.perform:
        // webApp(origin:)) and the notification by its id; the device has no action buttons for web notifications.
        let webNote = try #require(Self.function("drawWebNote", in: script))
        #expect(webNote.contains("const base = { bundleID: webApp.origin, identifier: note.id };"))
        #expect(webNote.contains("{ ...base, kind: 'tap' }") && webNote.contains("{ ...base, kind: 'dismiss' }"))
        #expect(!webNote.contains("kind: 'action'"))
        for testid in ["'web-notification-'", "'web-tap'", "'web-app-'", "'web-app-state'", "'mac'"] {
            #expect(script.contains("testid: \(testid)"), "\(testid)")
        }
    }

    @Test("trace: every web push kind has its colour and meaning; a refusal's status, reason and explanation are written out")
    func webPushTrace() throws {
        let script = String(decoding: try #require(ConsoleAssets.asset(at: "/console/console.js")).bytes, as: UTF8.self)
        let styles = String(decoding: try #require(ConsoleAssets.asset(at: "/console/console.css")).bytes, as: UTF8.self)
        for kind in ["decrypted", "shown", "not-shown", "refused"] {
            #expect(styles.contains(".k-\(kind) .tl-dot {"), "\(kind) has no colour")
            #expect(script.contains("  \(kind.contains("-") ? "'\(kind)'" : kind): '"), "\(kind) has no meaning")
        }
        let why = try #require(Self.function("drawWhy", in: script))
        for member in ["detail.status", "detail.reason", "detail.explanation"] { #expect(why.contains(member), "\(member)") }
        // A refused push is not stored: the page reads its trace alone rather than showing a 404.
        #expect(script.contains("/trace`"))
        #expect(script.contains("if (event.event === 'refused') noteRefusal(event.apnsID);"))
    }

    /// The text of a top-level `function name(` in a script, up to the next line that closes a top-level block.
    static func function(_ name: String, in script: String) -> Substring? {
        guard let start = script.range(of: "\nfunction \(name)(") else { return nil }
        let rest = script[start.upperBound...]
        guard let end = rest.range(of: "\n}\n") else { return nil }
        return rest[..<end.upperBound]
    }

    @Test("every module a script imports is built in: the set of files is exactly the page's style sheet and its modules")
    func importsAreServed() throws {
        var imported: Set<String> = []
        for asset in ConsoleAssets.files.values where asset.name.hasSuffix(".js") {
            let text = String(decoding: asset.bytes, as: UTF8.self)
            for match in text.matches(of: /from '\.\/([A-Za-z0-9_-]+\.js)'/) { imported.insert(String(match.output.1)) }
        }
        #expect(imported == ["helpers.js", "faults.js", "channels.js"])
        #expect(Set(ConsoleAssets.files.keys) == imported.union(["console.js", "console.css"]))
    }
}
