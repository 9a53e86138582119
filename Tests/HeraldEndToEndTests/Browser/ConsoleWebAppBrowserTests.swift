import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The web console's web apps in a real browser (tier 3): `herald serve`, a `herald device --web-app` (Safari alone,
/// so a Mac) and an iPhone with a Home Screen web app, showing declarative web pushes sent by pywebpush, and headless Chromium driven by selenium
/// (`Tests/Interop/console_webapp_browser.py`). Screenshots in `.build/test-output/console-web-apps/` (docs/console.md).
///
/// Needs what ``ConsoleBrowserTests`` needs, and pywebpush in the interop Python (installed on first use); without
/// them it fails and says so.
@Suite("Interop: the web console's web apps in headless Chromium", .serialized, .tier(.browser))
struct ConsoleWebAppBrowserTests {
    static let title = "Order shipped"
    static let body = "Arrives Tuesday"
    static let message =
        #"{"web_push":8030,"notification":{"title":"\#(title)","body":"\#(body)","navigate":"https://shop.example/orders/42"},"app_badge":3}"#
    static let otherMessage = #"{"web_push":8030,"notification":{"title":"Back in stock","navigate":"https://shop.example/mug"}}"#
    /// An iPhone's Home Screen web app, beside an iOS app (only a Home Screen web app gets web push on iOS).
    static let homeScreenOrigin = "https://news.example"
    static let phoneApp = "com.example.console"
    static let newsTitle = "Breaking news"
    static let newsMessage = #"{"web_push":8030,"notification":{"title":"\#(newsTitle)","navigate":"https://news.example/today"}}"#

    static var screenshots: URL { Interop.packageRoot.appendingPathComponent(".build/test-output/console-web-apps") }
    static var script: String { Interop.packageRoot.appendingPathComponent("Tests/Interop/console_webapp_browser.py").path }

    @Test("a Mac's web app notification on the console, tapped into its trace; a refused web push listed and explained; Remove permission")
    func webAppOnConsole() async throws {
        let python = try await Interop.python()
        try await ConsoleBrowserTests.requireBrowser(python: python)
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let mac = try await workspace.addDevice("Console Mac")
            let site = try WebPushEndToEndTests.Site(in: workspace.data)
            let (device, subscription) = try await WebPushEndToEndTests.startWebApp(workspace, server, device: (mac.id, mac.secret), site: site)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(subscription.utf8)) as? [String: Any])
            let endpoint = try #require(object["endpoint"] as? String)

            // Two notifications: the first is tapped, the second dismissed.
            let answer = try await site.send(subscription, data: ["--data", Self.message])
            let other = try await site.send(subscription, data: ["--data", Self.otherMessage])
            try #require(answer.status == 201 && other.status == 201, "\(answer) \(other)")
            let apnsID = try WebPushEndToEndTests.apnsID(answer)
            let otherID = try WebPushEndToEndTests.apnsID(other)
            let phone = try await workspace.addDevice("Console iPhone")
            let (phoneDevice, phoneSubscription) = try await Self.startHomeScreenWebApp(
                workspace,
                server,
                device: (phone.id, phone.secret),
                site: site
            )
            let news = try await site.send(phoneSubscription, data: ["--data", Self.newsMessage])
            try #require(news.status == 201, "\(news)")
            let newsID = try WebPushEndToEndTests.apnsID(news)
            for id in [apnsID, otherID, newsID] { _ = try await server.waitForNotification(id, "shown") { $0.kinds.contains("shown") } }

            try? FileManager.default.removeItem(at: Self.screenshots)
            try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
            print("console web app browser test: screenshots in \(Self.screenshots.path)")
            let run = try await ExternalProcess.run(
                python,
                [
                    Self.script, "--url", "http://127.0.0.1:\(server.linkPort)/", "--device", mac.id, "--origin", WebPushEndToEndTests.origin,
                    "--apns-id", apnsID, "--title", Self.title, "--dismiss-apns-id", otherID, "--endpoint", endpoint, "--phone", phone.id,
                    "--phone-origin", Self.homeScreenOrigin, "--phone-apns-id", newsID, "--phone-title", Self.newsTitle, "--out",
                    Self.screenshots.path,
                ],
                deadline: .seconds(180)
            )
            let summary = try #require(
                run.lines.last.flatMap(HeraldExecutableInteropTests.jsonObject),
                "console_webapp_browser.py printed no JSON summary: \(run)"
            )
            let context = "\(summary)\nscreenshots: \(Self.screenshots.path)\n\(run.stderr)\n\(device.stdoutSoFar)\n\(phoneDevice.stdoutSoFar)"
            let failure = "console_webapp_browser.py failed after step \(summary["failedAfter"] ?? "-"): \(summary["error"] ?? "exit \(run.status)")"
            try #require(run.status == 0 && !run.timedOut && summary["ok"] as? Bool == true, "\(failure)\n\(context)")
            #expect(
                summary["steps"] as? [String] == [
                    "web-app-on-mac", "home-screen-web-app", "web-app-tapped", "web-app-dismissed", "refused-trace", "permission-removed",
                ],
                "\(context)"
            )

            // Drawn on a Mac: the origin as the app's name, a web icon, the title and body; the row's state and badge.
            #expect(summary["mac"] as? Bool == true && summary["phone"] as? Bool == false, "\(context)")
            #expect(summary["noteApp"] as? String == "shop.example", "\(context)")
            #expect(summary["noteOrigin"] as? String == WebPushEndToEndTests.origin, "\(context)")
            #expect(summary["noteTitle"] as? String == Self.title && summary["noteBody"] as? String == Self.body, "\(context)")
            #expect(summary["noteHasGlobe"] as? Bool == true, "\(context)")
            #expect(summary["webAppState"] as? String == "subscribed", "\(context)")
            #expect(summary["webAppEndpoint"] as? String == endpoint, "\(context)")
            #expect(summary["webAppBadge"] as? String == "3", "\(context)")

            // On the iPhone: the Home Screen web app's notification beside the iOS app's row, its icon in the dock.
            let onPhone = try #require(summary["homeScreen"] as? [String: Any], "\(context)")
            #expect(onPhone["phone"] as? Bool == true && onPhone["mac"] as? Bool == false, "\(context)")
            #expect(onPhone["title"] as? String == Self.newsTitle && onPhone["app"] as? String == "news.example", "\(context)")
            #expect(onPhone["source"] as? String == "Web App" && onPhone["dockWebIcons"] as? Int == 1, "\(context)")
            #expect(onPhone["iosAppRow"] as? Bool == true, "\(context)")
            #expect((onPhone["rowFacts"] as? String)?.hasPrefix("Home Screen web app · subscription ") == true, "\(context)")

            // The tap ran on the device: its `action` follows `decrypted` and `shown` in the trace.
            let kinds = try #require(summary["tapTrace"] as? [String], "\(context)")
            #expect(kinds.first == "accepted", "\(context)")
            let decrypted = kinds.firstIndex(of: "decrypted") ?? .max
            let shown = kinds.firstIndex(of: "shown") ?? .max
            let action = kinds.firstIndex(of: "action") ?? -1
            #expect(decrypted < shown && shown < action, "decrypted, shown, then action: \(context)")
            #expect((summary["tapAction"] as? String)?.contains("https://shop.example/orders/42") == true, "the URL it opened: \(context)")
            #expect(summary["recentTitle"] as? String == Self.title, "the list names a web push by what it showed: \(context)")
            let traced = try await server.waitForNotification(apnsID, "action") { $0.kinds.contains("action") }
            #expect(traced.detail(of: "action")?["source"] as? String == "declarative", "\(traced)")

            // × ran the device's dismiss: `dismissed` after `shown`, and nothing is left on the screen.
            let dismissKinds = try #require(summary["dismissTrace"] as? [String], "\(context)")
            #expect((dismissKinds.firstIndex(of: "shown") ?? .max) < (dismissKinds.firstIndex(of: "dismissed") ?? -1), "\(context)")
            #expect(summary["notificationsLeft"] as? Int == 0, "\(context)")

            // The refusal, heard live and explained.
            #expect(summary["refusedStatus"] as? Int == 403, "\(context)")
            #expect(summary["refusedRecentState"] as? String == "refused · BadJwtToken", "\(context)")
            #expect(summary["refusedTrace"] as? [String] == ["refused"], "\(context)")
            #expect(summary["permission"] as? String == "permission removed", "the row after Remove permission: \(context)")
            #expect(summary["refusalStatus"] as? String == "403 BadJwtToken", "\(context)")
            #expect(summary["refusalExplanation"] as? String == "VAPID: no Authorization header", "\(context)")

            #expect(summary["browserErrors"] as? [String] == [], "\(context)")
            #expect(summary["cspViolations"] as? [String] == [], "\(context)")
            let screenshots = summary["screenshots"] as? [String] ?? []
            #expect(screenshots.count == 9, "\(context)")
            for path in screenshots {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(path) is not a PNG")
            }
            device.killAndWait()
            phoneDevice.killAndWait()
            _ = try await server.stop()
        }
    }

    /// Starts `herald device` as an iPhone with an iOS app and a Home Screen web app; returns the process and the
    /// subscription line it printed.
    static func startHomeScreenWebApp(
        _ workspace: HeraldWorkspace,
        _ server: HeraldServeProcess,
        device: (id: String, secret: String),
        site: WebPushEndToEndTests.Site
    ) async throws -> (process: ExternalProcess, subscription: String) {
        let process = try workspace.start([
            "device", "--server", server.deviceLinkURL, "--id", device.id, "--secret", device.secret, "--app", phoneApp, "--web-app",
            homeScreenOrigin, "--vapid-public-key", site.publicKey, "--home-screen",
        ])
        let printed = try await process.waitForOutput(deadline: .seconds(60)) { $0.contains(#""endpoint""#) }
        let line = try #require(printed.split(separator: "\n").first { $0.contains(#""endpoint""#) && $0.contains(#""p256dh""#) })
        return (process, String(line))
    }
}
