import Foundation
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Console: the page on GET / and /console")
struct ConsoleResponderTests {
    /// Every `data-testid` the browser test and docs/console.md rely on that is in the page's HTML or script.
    static let testIDs = [
        "send-form", "send-token", "send-device", "send-app", "send-push-type", "send-priority", "send-payload", "send-validation",
        "send-button", "send-result", "send-result-apns-id", "trace", "live-status", "devices",
    ]
    /// Test ids the script builds from a prefix and a value.
    static let testIDPrefixes = ["'device-'", "'notification-'", "'action-'", "'text-input-'", "'text-input-send-'", "'trace-event-'"]

    /// A router with the console's routes only.
    static func router() -> WebRouter {
        var routes = WebRoutes()
        ConsoleResponder().addRoutes(to: &routes)
        return WebRouter(routes: routes, configuration: WebConfiguration(), metrics: .init(), logger: .init(label: "test.console"))
    }

    static func page(_ path: String) async throws -> (response: WebResponse, text: String) {
        let response = await router().respond(to: WebRequest(method: "GET", target: path))
        return (response, String(decoding: response.body, as: UTF8.self))
    }

    @Test("GET / and GET /console answer the same self-contained HTML page")
    func servesThePage() async throws {
        for path in ["/", "/console", "/console/", "/?device=abc"] {
            let (response, text) = try await Self.page(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["content-type"] == "text/html; charset=utf-8", "\(path)")
            #expect(response.headers["cache-control"] == "no-store", "\(path)")
            #expect(response.headers["content-security-policy"]?.contains("connect-src 'self'") == true, "\(path)")
            #expect(text.hasPrefix("<!doctype html>"), "\(path)")
            #expect(text.hasSuffix("</html>\n"), "\(path)")
            #expect(response.body == ConsolePage.bytes, "\(path)")
        }
    }

    @Test("the page has the send form, the test ids, and the API paths it calls")
    func pageContents() async throws {
        let (_, text) = try await Self.page("/")
        #expect(text.contains(#"<form data-testid="send-form""#))
        for id in Self.testIDs {
            #expect(text.contains(#"data-testid="\#(id)""#) || text.contains("testid: '\(id)'"), "no data-testid \(id)")
        }
        for prefix in Self.testIDPrefixes {
            #expect(text.contains("testid: \(prefix)"), "no test id built from \(prefix)")
        }
        for path in [
            "/api/v1/devices", "/api/v1/console/validate", "/api/v1/console/send", "/api/v1/events", "/interactions", "/screen",
            "/api/v1/notifications/",
        ] {
            #expect(text.contains(path), "the page does not call \(path)")
        }
        for kind in ["tap", "action", "dismiss", "expand", "collapse", "playPause", "setState"] {
            #expect(text.contains("'\(kind)'"), "the page never sends an interaction of kind \(kind)")
        }
    }

    @Test("the page loads nothing from elsewhere: no external scripts, styles, fonts or images")
    func selfContained() async throws {
        let (_, text) = try await Self.page("/")
        for forbidden in ["<script src", "<link rel=\"stylesheet\"", "@import", "url(http", "src=\"http", "src=\"//", "fetch('http", "fetch(\"http"] {
            #expect(!text.contains(forbidden), "the page contains \(forbidden)")
        }
        #expect(text.components(separatedBy: "<script>").count == 2, "one inline script")
        #expect(text.components(separatedBy: "<style>").count == 2, "one inline style sheet")
        // The script is whole: it starts in strict mode and ends by calling itself.
        #expect(ConsolePage.script.hasPrefix("'use strict';\n(() => {"))
        #expect(ConsolePage.script.hasSuffix("})();\n"))
    }

    @Test("other methods on the page get 405; HEAD the headers; /api/…, /metrics, /device-link and other paths are not the page")
    func routing() async throws {
        let console = Self.router()
        for method in ["POST", "PUT", "DELETE"] {
            let response = await console.respond(to: WebRequest(method: method, target: "/"))
            #expect(response.status == 405, "\(method)")
            #expect(response.headers["allow"] == "GET, HEAD")
        }
        let head = await console.respond(to: WebRequest(method: "HEAD", target: "/console"))
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == ConsoleResponder.contentType)
        #expect(head.body.isEmpty)
        for path in [
            "/api/v1/devices", "/api/v1/console/validate", "/api/v1/events", "/api/", "/metrics", "/device-link", "/console/app.js", "/index.html",
            "/favicon.ico",
        ] {
            #expect(await console.respond(to: WebRequest(method: "GET", target: path)).status != 200, "\(path) was taken by the console")
            #expect(await console.respond(to: WebRequest(method: "POST", target: path)).status != 200, "POST \(path) was taken by the console")
        }
    }
}
