import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// The web console in a real browser (tier 3): `herald serve`, a `herald device` enrolled with a manifest, and
/// headless Chromium driven by selenium (`Tests/Interop/console_browser.py`). Screenshots of every step are saved in
/// `.build/test-output/console/` (docs/console.md).
///
/// Needs Debian's `chromium` and `chromium-driver` and selenium in the interop Python; `bash .ci/run` installs them.
/// Without them the test fails and says so: it never skips silently.
@Suite("Interop: the web console in headless Chromium", .serialized, .tier(.browser))
struct ConsoleBrowserTests {
    static let app = "com.example.console"
    /// An app whose user denied notifications: its alerts are delivered and dropped (`notAuthorized`).
    static let mutedApp = "com.example.muted"
    static let category = "message"
    static let action = "like"
    static let textAction = "reply"
    static let replyText = "On my way"
    /// The content extension's title for the first notification (`"Chat: {title}"` with the script's title).
    static let expandedTitle = "Chat: Lunch at noon?"

    /// The device: one app with a category that has a plain action and a text input action, a content extension
    /// with a play/pause button for that category, and a service extension that attaches the image a payload names
    /// under `image`.
    static let manifest = """
        {
          "name": "Console iPhone",
          "apps": [
            {
              "bundleID": "\(app)",
              "name": "Messages",
              "categories": [
                {
                  "identifier": "\(category)",
                  "actions": [
                    { "identifier": "\(textAction)", "title": "Reply", "textInput": { "buttonTitle": "Send", "placeholder": "Message" } },
                    { "identifier": "\(action)", "title": "Like" }
                  ]
                }
              ],
              "contentExtensions": [
                {
                  "name": "MessageContent",
                  "UNNotificationExtensionCategory": ["\(category)"],
                  "UNNotificationExtensionInitialContentSizeRatio": 0.4,
                  "UNNotificationExtensionOverridesDefaultTitle": true,
                  "title": "Chat: {title}",
                  "lines": ["{body}"],
                  "mediaPlayPauseButton": { "type": "default", "frame": [0, 0, 44, 44], "tint": "#0A84FF" }
                }
              ],
              "serviceExtension": { "steps": [{ "kind": "downloadAttachment", "key": "image", "identifier": "image" }] }
            },
            { "bundleID": "\(mutedApp)", "name": "Muted", "authorization": { "granted": false } }
          ]
        }
        """

    /// Where the screenshots go: `<package>/.build/test-output/console/`.
    static var screenshots: URL { Interop.packageRoot.appendingPathComponent(".build/test-output/console") }
    static var script: String { Interop.packageRoot.appendingPathComponent("Tests/Interop/console_browser.py").path }

    @Test("send from the form, see it on the device's screen, expand it, press an action and a text input action, follow the trace")
    func consoleEndToEnd() async throws {
        let python = try await Interop.python()
        try await Self.requireBrowser(python: python)
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace, options: ["--allow-enrol"])
            // A device that never connects: the page shows it without asking for a screen it cannot have (no 404 in
            // the browser's log, checked below).
            _ = try await workspace.addDevice("Drawer iPad")
            let manifestFile = workspace.data.appendingPathComponent("console-device.json")
            try Data(Self.manifest.utf8).write(to: manifestFile)
            let device = try workspace.start([
                "device", "--server", server.deviceLinkURL, "--enrol", "Console iPhone", "--manifest", manifestFile.path, "--json",
                "--max-backoff", "1",
            ])
            let deviceID = try await Self.enrolledID(of: device)
            try await server.waitUntil(deviceID: deviceID, isOnline: true)

            try? FileManager.default.removeItem(at: Self.screenshots)
            try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
            print("console browser test: screenshots in \(Self.screenshots.path)")
            let run = try await ExternalProcess.run(
                python,
                [
                    Self.script, "--url", "http://127.0.0.1:\(server.linkPort)/", "--device", deviceID, "--app", Self.app,
                    "--category", Self.category, "--action", Self.action, "--text-action", Self.textAction, "--text", Self.replyText,
                    "--expand", Self.expandedTitle, "--image", "--silent", "--faults", "--dropped-app", Self.mutedApp,
                    "--out", Self.screenshots.path,
                ],
                deadline: .seconds(300)
            )
            let summary = try #require(
                run.lines.last.flatMap(HeraldExecutableInteropTests.jsonObject),
                "console_browser.py printed no JSON summary: \(run)"
            )
            let context = "\(summary)\nscreenshots: \(Self.screenshots.path)\n\(run.stderr)\n\(device.stdoutSoFar)"
            let failure = "console_browser.py failed after step \(summary["failedAfter"] ?? "-"): \(summary["error"] ?? "exit \(run.status)")"
            try #require(run.status == 0 && !run.timedOut && summary["ok"] as? Bool == true, "\(failure)\n\(context)")
            #expect(summary["error"] is NSNull, "\(context)")
            #expect(summary["validationReason"] as? String == "PayloadEmpty", "\(context)")
            #expect(
                summary["steps"] as? [String] == [
                    "first-paint", "console", "invalid-payload", "sent", "on-device", "expanded", "action-in-trace", "text-input",
                    "text-input-in-trace", "thumbnail", "silent-push", "category-hint", "filter", "fault-bad-rule", "fault-added", "fault-applied",
                    "fault-preset", "faults-cleared", "dropped-in-recent",
                ],
                "\(context)"
            )
            #expect(summary["browserErrors"] as? [String] == [], "\(context)")
            // Chromium logs the bad rule's 400, the one failed request the script provokes.
            #expect((summary["expectedBrowserErrors"] as? [String])?.count == 1, "\(context)")
            // Nothing the console does is refused by its CSP; the probe shows the check can see a refusal.
            #expect(summary["cspViolations"] as? [String] == [], "\(context)")
            #expect((summary["cspProbe"] as? [String])?.first?.hasPrefix("style-src") == true, "\(context)")
            #expect(summary["cspProbeLogged"] as? Bool == true, "\(context)")
            let screenshots = summary["screenshots"] as? [String] ?? []
            #expect(screenshots.count == 20, "\(context)")
            try Self.checkFirstPaint(summary, context: context)
            // A delivered push its device dropped is listed as dropped, with the reason (issue 37, item 6).
            #expect(summary["droppedState"] as? String == "dropped · notAuthorized", "\(context)")
            // The silent push showed nothing on the phone; the filter left the first push; the zone is named.
            #expect(summary["silentOnPhone"] as? Bool == false, "\(context)")
            #expect((summary["filtered"] as? [String])?.first?.contains("Lunch at noon?") == true, "\(context)")
            #expect((summary["filterCount"] as? String)?.hasPrefix("1 of ") == true, "\(context)")
            #expect((summary["timeZone"] as? String)?.contains("UTC") == true, "\(context)")
            // The thumbnail is the 40 × 40 image the script served, downloaded by the device's service extension.
            #expect(summary["thumbnailWidth"] as? Int == 40, "\(context)")
            try Self.checkFaultsPanel(summary, context: context)
            for path in screenshots {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 10_000, "\(path) is not a PNG of the page")
            }

            // What the browser saw, checked on the server: the action and the reply are in the traces, and the photo's
            // trace holds the service extension's change.
            let apnsIDs = try #require(summary["apnsIDs"] as? [String], "\(context)")
            try #require(apnsIDs.count == 6, "\(context)")
            let liked = try await server.waitForNotification(apnsIDs[0], "action in the trace") { $0.kinds.contains("action") }
            #expect(liked.detail(of: "action")?["action"] as? String == Self.action, "\(liked)")
            #expect(liked.kinds.starts(with: ["accepted", "sent", "acknowledged", "displayed"]), "\(liked)")
            let replied = try await server.waitForNotification(apnsIDs[1], "reply in the trace") { $0.kinds.contains("action") }
            #expect(replied.detail(of: "action")?["action"] as? String == Self.textAction, "\(replied)")
            #expect(replied.detail(of: "action")?["text"] as? String == Self.replyText, "\(replied)")
            let photo = try await server.waitForNotification(apnsIDs[2], "the photo displayed") { $0.kinds.contains("displayed") }
            #expect(photo.kinds.contains("modified"), "\(photo)")
            let muted = try await server.waitForNotification(apnsIDs[5], "the muted app's drop") { $0.kinds.contains("dropped") }
            #expect(muted.state == "delivered" && muted.detail(of: "dropped")?["reason"] as? String == "notAuthorized", "\(muted)")
        }
    }

    /// What the Faults panel showed (console_browser.py --faults): the server's message for a refused rule, a rule listed
    /// before and after the push it answered, a scenario with the picked device's token, and the list cleared.
    /// At first paint (the page's requests to the API held) and after load, the Send panel is usable: every select has
    /// options, the payload parses and its verdict says so, the device list says something (issue 37, item 13).
    static func checkFirstPaint(_ summary: [String: Any], context: String) throws {
        let first = try #require(summary["firstPaint"] as? [String: Any], "\(context)")
        #expect(first["device"] as? [String] == ["Asking the server…"], "\(context)")
        #expect(first["app"] as? [String] == ["Pick a device first"], "\(context)")
        #expect((first["template"] as? [String])?.first == "Templates…" && (first["template"] as? [String])?.count == 6, "\(context)")
        #expect((first["validation"] as? String)?.hasPrefix("Valid JSON, ") == true, "\(context)")
        #expect((first["payload"] as? String)?.contains(#""title": "Hello""#) == true, "\(context)")
        #expect((first["devices"] as? String)?.contains("herald device --app com.example.app") == true, "\(context)")
        let loaded = try #require(summary["afterLoad"] as? [String: Any], "\(context)")
        #expect((loaded["device"] as? [String])?.contains("● Console iPhone") == true, "\(context)")
        #expect((loaded["app"] as? [String])?.contains(Self.app) == true, "\(context)")
        #expect((loaded["validation"] as? String)?.hasPrefix("✓ Ready to send") == true, "\(context)")
        #expect((loaded["devices"] as? String)?.contains("Console iPhone") == true, "\(context)")
    }

    static func checkFaultsPanel(_ summary: [String: Any], context: String) throws {
        #expect((summary["faultExample"] as? String)?.hasPrefix(#"{"match": {"topic": "com.example.app"}, "status": 503"#) == true, "\(context)")
        #expect(
            (summary["faultError"] as? String)?.contains("'reason' Unregistered is Apple's answer with status 410, not 503") == true,
            "\(context)"
        )
        #expect(summary["faultErrorState"] as? String == "false", "\(context)")
        #expect((summary["faultAdded"] as? String)?.hasPrefix("Added console-outage: ") == true, "\(context)")
        let listed = try #require(summary["faultListed"] as? [String: String], "\(context)")
        #expect(listed["summary"] == "topic \(app) → 503 ServiceUnavailable, 1 left", "\(context)")
        #expect(listed["applied"] == "applied 0" && listed["remaining"] == "remaining 1" && listed["count"] == "1", "\(context)")
        // The push from the form got the rule's answer, and the panel counted it.
        #expect(summary["faultPush"] as? [String] == ["503", "ServiceUnavailable"], "\(context)")
        let applied = try #require(summary["faultApplied"] as? [String: String], "\(context)")
        #expect(applied["summary"] == "topic \(app) → 503 ServiceUnavailable, spent", "\(context)")
        #expect(applied["applied"] == "applied 1" && applied["remaining"] == "remaining 0", "\(context)")
        #expect(summary["faultRemoved"] as? String == "Removed console-outage.", "\(context)")
        // The scenario took the app's token from the Send panel: the rule names it, and the next push got 410.
        let token = try #require(summary["faultPresetToken"] as? String, "\(context)")
        #expect(token.count >= 16 && token.allSatisfy(\.isHexDigit), "\(context)")
        #expect(
            summary["faultPresetJSON"] as? String == #"{"scenario": "app-uninstalled", "token": "\#(token)"}"#,
            "\(context)"
        )
        #expect(summary["faultPresetPush"] as? [String] == ["410", "Unregistered"], "\(context)")
        let short = "\(token.prefix(8))…\(token.suffix(6))"
        #expect((summary["faultPresetSummary"] as? String)?.hasPrefix("token \(short) → 410 Unregistered") == true, "\(context)")
        #expect(summary["faultCleared"] as? String == "Removed 1 rule.", "\(context)")
        #expect(summary["faultClearedPush"] as? [String] == ["200", "—"], "\(context)")
    }

    /// The device id `herald device --enrol --json` printed (`{"event":"enrolled","device":…}`), once its app has a
    /// token.
    static func enrolledID(of device: ExternalProcess) async throws -> String {
        try await eventually("herald device to enrol and register \(app)", within: .seconds(60), state: device.stdoutSoFar + device.stderrSoFar) {
            guard device.isRunning else { throw InteropError("herald device exited: \(device.stdoutSoFar)\n\(device.stderrSoFar)") }
            let events = device.stdoutSoFar.split(whereSeparator: \.isNewline).compactMap { HeraldExecutableInteropTests.jsonObject(String($0)) }
            guard events.contains(where: { $0["event"] as? String == "registered" && $0["bundleID"] as? String == app }) else { return nil }
            return events.first { $0["event"] as? String == "enrolled" }?["device"] as? String
        }
    }

    /// Fails (one line, how to fix it) unless Chromium, chromedriver and selenium are there.
    static func requireBrowser(python: String) async throws {
        let environment = ProcessInfo.processInfo.environment
        let chromium = environment["HERALD_CHROMIUM"] ?? "/usr/bin/chromium"
        let driver = environment["HERALD_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        var missing = [chromium, driver].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        let selenium = try await ExternalProcess.run(python, ["-c", "import selenium"], deadline: .seconds(60))
        if !selenium.succeeded { missing.append("selenium for \(python)") }
        guard missing.isEmpty else {
            throw InteropError(
                "the console browser test needs Chromium, chromedriver and selenium (missing: \(missing.joined(separator: ", "))): "
                    + "run `bash .ci/run`, or `apt-get install chromium chromium-driver` and `\(python) -m pip install \(Interop.seleniumPin)`"
            )
        }
    }
}
