import Foundation
import HeraldConsole
import HeraldTestTiers
import Testing

@testable import HeraldWeb

@Suite("Console: the page on GET / and /console, its files under /console/", .tier(.unit))
struct ConsoleResponderTests {
    /// Every `data-testid` the browser test and docs/console.md rely on that is in the page's HTML or script.
    static let testIDs = [
        "send-form", "send-token", "send-device", "send-app", "send-push-type", "send-priority", "send-payload", "send-validation",
        "send-button", "send-result", "send-result-apns-id", "trace", "live-status", "devices", "faults-panel", "faults", "fault-json",
        "fault-add", "fault-clear", "fault-message", "fault-preset-apns-outage", "fault-preset-app-uninstalled", "fault-summary",
        "fault-applied", "fault-remaining", "fault-remove",
    ]
    /// Test ids the script builds from a prefix and a value.
    static let testIDPrefixes = ["'device-'", "'notification-'", "'action-'", "'text-input-'", "'text-input-send-'", "'trace-event-'", "'fault-'"]

    /// A router with the console's routes only.
    static func router() -> WebRouter {
        var routes = WebRoutes()
        ConsoleResponder().addRoutes(to: &routes)
        return WebRouter(routes: routes, configuration: WebConfiguration(), metrics: .init(), logger: .init(label: "test.console"))
    }

    static func get(_ path: String, headers: [(name: String, value: String)] = []) async throws -> (response: WebResponse, text: String) {
        let response = await router().respond(to: WebRequest(method: "GET", target: path, headers: headers))
        return (response, String(decoding: response.body, as: UTF8.self))
    }

    /// The page and every file it loads, as one text.
    static func pageAndFiles() async throws -> String {
        var text = try await get("/").text
        for name in ["console.css", "console.js", "helpers.js", "faults.js"] { text += try await get("/console/" + name).text }
        return text
    }

    @Test("GET / and GET /console answer the same HTML page, which loads its style sheet and script from /console/")
    func servesThePage() async throws {
        for path in ["/", "/console", "/console/", "/?device=abc"] {
            let (response, text) = try await Self.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["content-type"] == "text/html; charset=utf-8", "\(path)")
            #expect(response.headers["cache-control"] == "no-cache", "\(path)")
            #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(response.headers["etag"] == ConsoleAssets.page.entityTag, "\(path)")
            #expect(text.hasPrefix("<!doctype html>"), "\(path)")
            #expect(text.hasSuffix("</html>\n"), "\(path)")
            #expect(text.contains(#"<link rel="stylesheet" href="/console/console.css">"#), "\(path)")
            #expect(text.contains(#"<script type="module" src="/console/console.js"></script>"#), "\(path)")
        }
    }

    @Test(
        "the style sheet and the script modules have their content types",
        arguments: [
            ("/console/console.css", "text/css; charset=utf-8"), ("/console/console.js", "text/javascript; charset=utf-8"),
            ("/console/helpers.js", "text/javascript; charset=utf-8"), ("/console/faults.js", "text/javascript; charset=utf-8"),
        ]
    )
    func servesTheFiles(path: String, contentType: String) async throws {
        let (response, text) = try await Self.get(path)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == contentType)
        #expect(response.headers["x-content-type-options"] == "nosniff")
        #expect(response.headers["cache-control"] == "no-cache")
        #expect(response.headers["etag"] == ConsoleAssets.asset(at: path)?.entityTag)
        #expect(!text.isEmpty)
    }

    @Test("the CSP allows scripts and styles from the same origin only: no inline script, style or handler")
    func contentSecurityPolicy() async throws {
        let (response, page) = try await Self.get("/")
        let policy = try #require(response.headers["content-security-policy"])
        let directives = Dictionary(
            uniqueKeysWithValues: policy.split(separator: ";").map { directive in
                let words = directive.split(separator: " ")
                return (String(words[0]), words.dropFirst().joined(separator: " "))
            }
        )
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'self'")
        #expect(directives["style-src"] == "'self'")
        #expect(directives["connect-src"] == "'self'")
        #expect(!policy.contains("unsafe"))
        // What the policy would block must not be in the page: inline scripts, style elements, style attributes, handlers.
        #expect(page.components(separatedBy: "<script").count == 2, "one script element, the module")
        #expect(!page.contains("<style"))
        #expect(!page.contains(" style="))
        #expect(page.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "an inline event handler")
        var script = ""
        for name in ConsoleAssets.files.keys where name.hasSuffix(".js") { script += try await Self.get("/console/" + name).text }
        #expect(!script.contains("style: '"), "a style attribute set from the script")
        #expect(!script.contains("innerHTML"))
    }

    @Test("If-None-Match with the current tag answers 304 without a body; another tag answers 200")
    func revalidation() async throws {
        for path in ["/", "/console/console.js", "/console/console.css"] {
            let tag = try #require(ConsoleAssets.asset(at: path)?.entityTag)
            for value in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let (response, _) = try await Self.get(path, headers: [(name: "If-None-Match", value: value)])
                #expect(response.status == 304, "\(path) \(value)")
                #expect(response.body.isEmpty)
                #expect(response.headers["etag"] == tag)
                #expect(response.headers["cache-control"] == "no-cache")
            }
            let (stale, _) = try await Self.get(path, headers: [(name: "if-none-match", value: "\"0123456789abcdef0123456789abcdef\"")])
            #expect(stale.status == 200, "\(path)")
            #expect(stale.body == ConsoleAssets.asset(at: path)?.bytes)
        }
    }

    @Test("an unknown file under /console/ is 404")
    func unknownFile() async throws {
        for path in ["/console/app.js", "/console/CONSOLE.JS"] {
            let (response, text) = try await Self.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(response.headers["content-type"] == "application/json")
            #expect(text.contains("no file"), "\(path)")
        }
        // Deeper paths match no route at all.
        for path in ["/console/../Package.swift", "/console/console.js/x"] {
            let (response, _) = try await Self.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(response.headers["content-type"] == "application/json")
        }
    }

    @Test("the page has the send form, the test ids, and the API paths it calls")
    func pageContents() async throws {
        let text = try await Self.pageAndFiles()
        #expect(text.contains(#"<form data-testid="send-form""#))
        for id in Self.testIDs {
            #expect(text.contains(#"data-testid="\#(id)""#) || text.contains("testid: '\(id)'"), "no data-testid \(id)")
        }
        for prefix in Self.testIDPrefixes {
            #expect(text.contains("testid: \(prefix)"), "no test id built from \(prefix)")
        }
        for path in [
            "/api/v1/devices", "/api/v1/console/validate", "/api/v1/console/send", "/api/v1/events", "/interactions", "/screen",
            "/api/v1/notifications/", "/api/v1/faults",
        ] {
            #expect(text.contains(path), "the page does not call \(path)")
        }
        for kind in ["tap", "action", "dismiss", "expand", "collapse", "playPause", "setState"] {
            #expect(text.contains("'\(kind)'"), "the page never sends an interaction of kind \(kind)")
        }
    }

    @Test("the page loads nothing from elsewhere: no external scripts, styles, fonts or images")
    func selfContained() async throws {
        let text = try await Self.pageAndFiles()
        for forbidden in ["src=\"http", "src=\"//", "href=\"http", "@import", "url(http", "fetch('http", "fetch(\"http", "from 'http"] {
            #expect(!text.contains(forbidden), "the console contains \(forbidden)")
        }
        // Every module the script imports is one the console serves.
        let script = try await Self.get("/console/console.js").text
        let imports = script.matches(of: /from '\.\/([a-z-]+\.js)'/).map { String($0.output.1) }
        #expect(!imports.isEmpty)
        for name in imports { #expect(ConsoleAssets.asset(at: "/console/" + name) != nil, "\(name) is not served") }
    }

    @Test("other methods on the console's paths get 405 with allow; HEAD answers; other paths are not the console's")
    func routing() async throws {
        let router = Self.router()
        for method in ["POST", "PUT", "DELETE"] {
            for path in ["/", "/console/console.js"] {
                let response = await router.respond(to: WebRequest(method: method, target: path))
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.headers["allow"] == "GET, HEAD")
            }
        }
        let head = await router.respond(to: WebRequest(method: "HEAD", target: "/console"))
        #expect(head.status == 200)
        for path in ["/api/v1/devices", "/api/", "/metrics", "/index.html", "/favicon.ico"] {
            #expect(await router.respond(to: WebRequest(method: "GET", target: path)).status == 404, "\(path) was taken by the console")
        }
    }
}
