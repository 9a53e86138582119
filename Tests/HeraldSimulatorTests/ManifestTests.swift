import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestTiers
import HeraldUserNotifications
import Testing

/// A manifest that must be refused, and the field the error must name.
struct BadManifest: CustomTestStringConvertible, Sendable {
    let name: String
    let json: String
    let field: String
    let code: ManifestError.Code

    var testDescription: String { name }

    static func app(_ fields: String) -> String { #"{"apps": [{"bundleID": "com.example.app", \#(fields)}]}"# }

    static let all: [BadManifest] = [
        BadManifest(name: "not JSON", json: "{apps: [", field: "", code: .invalidJSON),
        BadManifest(name: "no apps", json: #"{"name": "x"}"#, field: "apps", code: .missingField),
        BadManifest(name: "empty apps", json: #"{"apps": []}"#, field: "apps", code: .invalidValue),
        BadManifest(name: "no bundle id", json: #"{"apps": [{"state": "foreground"}]}"#, field: "apps[0].bundleID", code: .missingField),
        BadManifest(name: "bad bundle id", json: #"{"apps": [{"bundleID": "com example"}]}"#, field: "apps[0].bundleID", code: .invalidValue),
        BadManifest(name: "a typo", json: app(#""catgories": []"#), field: "apps[0].catgories", code: .unknownField),
        BadManifest(name: "unknown state", json: app(#""state": "sleeping""#), field: "apps[0].state", code: .invalidValue),
        BadManifest(name: "unknown environment", json: app(#""environment": "staging""#), field: "apps[0].environment", code: .invalidValue),
        BadManifest(name: "bad token", json: app(#""deviceToken": "xyz""#), field: "apps[0].deviceToken", code: .invalidValue),
        BadManifest(
            name: "wrong type",
            json: app(#""authorization": {"granted": "yes"}"#),
            field: "apps[0].authorization.granted",
            code: .wrongType
        ),
        BadManifest(
            name: "unknown authorization option",
            json: app(#""authorization": {"options": ["alert", "loud"]}"#),
            field: "apps[0].authorization.options",
            code: .invalidValue
        ),
        BadManifest(
            name: "unknown action option",
            json: app(#""categories": [{"identifier": "c", "actions": [{"identifier": "a", "title": "A", "options": ["loud"]}]}]"#),
            field: "apps[0].categories[0].actions[0].options",
            code: .invalidValue
        ),
        BadManifest(
            name: "duplicate action",
            json: app(#""categories": [{"identifier": "c", "actions": [{"identifier": "a", "title": "A"}, {"identifier": "a", "title": "B"}]}]"#),
            field: "apps[0].categories[0].actions[1].identifier",
            code: .duplicate
        ),
        BadManifest(
            name: "text input without button title",
            json: app(#""categories": [{"identifier": "c", "actions": [{"identifier": "a", "title": "A", "textInput": {"placeholder": "p"}}]}]"#),
            field: "apps[0].categories[0].actions[0].textInput.buttonTitle",
            code: .missingField
        ),
        BadManifest(
            name: "duplicate category",
            json: app(#""categories": [{"identifier": "c"}, {"identifier": "c"}]"#),
            field: "apps[0].categories[1].identifier",
            code: .duplicate
        ),
        BadManifest(
            name: "unknown willPresent option",
            json: app(#""delegate": {"willPresent": ["popup"]}"#),
            field: "apps[0].delegate.willPresent",
            code: .invalidValue
        ),
        BadManifest(
            name: "delegate code with behaviour",
            json: app(#""delegate": {"code": "AppDelegate", "fetchCompletion": "noData"}"#),
            field: "apps[0].delegate.fetchCompletion",
            code: .invalidValue
        ),
        BadManifest(
            name: "extension without steps or code",
            json: app(#""serviceExtension": {"name": "N"}"#),
            field: "apps[0].serviceExtension.steps",
            code: .missingField
        ),
        BadManifest(
            name: "extension with code and steps",
            json: app(#""serviceExtension": {"code": "N", "steps": [{"kind": "delay", "seconds": 1}]}"#),
            field: "apps[0].serviceExtension.steps",
            code: .invalidValue
        ),
        BadManifest(
            name: "unknown step",
            json: app(#""serviceExtension": {"steps": [{"kind": "translate"}]}"#),
            field: "apps[0].serviceExtension.steps[0].kind",
            code: .invalidValue
        ),
        BadManifest(
            name: "field of another step",
            json: app(#""serviceExtension": {"steps": [{"kind": "delay", "seconds": 1, "category": "c"}]}"#),
            field: "apps[0].serviceExtension.steps[0].category",
            code: .unknownField
        ),
        BadManifest(
            name: "negative delay",
            json: app(#""serviceExtension": {"steps": [{"kind": "delay", "seconds": -1}]}"#),
            field: "apps[0].serviceExtension.steps[0].seconds",
            code: .invalidValue
        ),
        BadManifest(
            name: "unknown placeholder",
            json: app(#""serviceExtension": {"steps": [{"kind": "rewrite", "key": "k", "body": "{nmae}: {body}"}]}"#),
            field: "apps[0].serviceExtension.steps[0].body",
            code: .invalidValue
        ),
        BadManifest(
            name: "{name} without a key",
            json: app(#""serviceExtension": {"steps": [{"kind": "rewrite", "title": "{name}"}]}"#),
            field: "apps[0].serviceExtension.steps[0].title",
            code: .invalidValue
        ),
        BadManifest(
            name: "rewrite of nothing",
            json: app(#""serviceExtension": {"steps": [{"kind": "rewrite", "key": "k"}]}"#),
            field: "apps[0].serviceExtension.steps[0].body",
            code: .missingField
        ),
        BadManifest(
            name: "download without key",
            json: app(#""serviceExtension": {"steps": [{"kind": "downloadAttachment"}]}"#),
            field: "apps[0].serviceExtension.steps[0].key",
            code: .missingField
        ),
        BadManifest(
            name: "content extension without ratio",
            json: app(#""contentExtensions": [{"UNNotificationExtensionCategory": "c"}]"#),
            field: "apps[0].contentExtensions[0].UNNotificationExtensionInitialContentSizeRatio",
            code: .missingField
        ),
        BadManifest(
            name: "content extension with a zero ratio",
            json: app(#""contentExtensions": [{"UNNotificationExtensionCategory": "c", "UNNotificationExtensionInitialContentSizeRatio": 0}]"#),
            field: "apps[0].contentExtensions[0].UNNotificationExtensionInitialContentSizeRatio",
            code: .invalidValue
        ),
        BadManifest(
            name: "bad tint",
            json: app(
                #""contentExtensions": [{"UNNotificationExtensionCategory": "c", "UNNotificationExtensionInitialContentSizeRatio": 1, "mediaPlayPauseButton": {"tint": "blue"}}]"#
            ),
            field: "apps[0].contentExtensions[0].mediaPlayPauseButton.tint",
            code: .invalidValue
        ),
        BadManifest(
            name: "bad line template",
            json: app(
                #""contentExtensions": [{"UNNotificationExtensionCategory": "c", "UNNotificationExtensionInitialContentSizeRatio": 1, "lines": ["{body"]}]"#
            ),
            field: "apps[0].contentExtensions[0].lines[0]",
            code: .invalidValue
        ),
        BadManifest(
            name: "duplicate app",
            json: #"{"apps": [{"bundleID": "com.example.app"}, {"bundleID": "com.example.app"}]}"#,
            field: "apps[1].bundleID",
            code: .duplicate
        ),
        BadManifest(
            name: "bad budget",
            json: app(#""backgroundPushBudget": {"limit": 3, "window": 0}"#),
            field: "apps[0].backgroundPushBudget.window",
            code: .invalidValue
        ),
    ]
}

@Suite("Device manifest", .tier(.unit))
struct ManifestTests {
    /// The complete example of docs/device-manifest.md.
    static func documentedExample() throws -> Data {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/device-manifest.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## A complete example").last)
        let block = try #require(section.components(separatedBy: "```json").dropFirst().first?.components(separatedBy: "```").first)
        return Data(block.utf8)
    }

    @Test("the documented complete example reads, with every field as written")
    func documentedExample() throws {
        let manifest = try DeviceManifest(json: Self.documentedExample())
        #expect(manifest.name == "Alice's iPhone")
        let chat = try #require(manifest.app("com.example.chat"))
        #expect(chat.state == .suspended)
        #expect(chat.deviceToken?.hex.count == 64)
        #expect(chat.categories.first?.actions.map(\.identifier) == ["reply", "like", "delete"])
        #expect(chat.categories.first?.actions.first?.textInput == TextInputManifest(buttonTitle: "Send", placeholder: "Message"))
        #expect(chat.categories.first?.actions.last?.options == [.destructive, .authenticationRequired])
        #expect(chat.categories.first?.options == .customDismissAction)
        #expect(chat.serviceExtension?.steps.map(\.kind) == ["rewrite", "removeDeliveredWithSameKey", "setCategory"])
        let content = try #require(chat.contentExtensions.first)
        #expect(content.attributes.categories == ["message"])
        #expect(content.attributes.initialContentSizeRatio == 0.5)
        #expect(content.mediaPlayPauseButton?.type == .default)
        #expect(content.actionResponse == .dismissAndForwardAction)
        let news = try #require(manifest.app("com.example.news"))
        #expect(news.name == "News")
        #expect(news.delegate.fetchCompletion == .noData)
        #expect(!news.delegate.implementsWillPresent)
        #expect(news.serviceExtension?.steps.last == .delay(seconds: 2))
    }

    @Test("every field has its documented default")
    func defaults() throws {
        let manifest = try DeviceManifest(json: Data(#"{"apps": [{"bundleID": "com.example.app"}]}"#.utf8))
        #expect(manifest.name == "Simulated iPhone")
        let app = try #require(manifest.apps.first)
        #expect(app == AppManifest(bundleID: "com.example.app"))
        #expect(app.name == "Example")
        #expect(AppManifest(bundleID: "com.example.chat").name == "Chat")
        #expect(AppManifest(bundleID: "com.example.news.iOS").name == "News")
        #expect(AppManifest(bundleID: "app").name == "App")
        #expect(app.environment == .sandbox)
        #expect(app.deviceToken == nil)
        #expect(app.authorization == AuthorizationManifest(granted: true, options: [.alert, .sound, .badge]))
        #expect(app.state == .notRunning)
        #expect(app.backgroundModes == ["remote-notification"])
        #expect(app.delegate == DelegateManifest())
        #expect(app.delegate.willPresent == [.banner, .list, .sound, .badge])
        #expect(app.backgroundPushBudget == BackgroundPushBudget(limit: 3, window: 3600))
        #expect(app.serviceExtension == nil)
        #expect(app.contentExtensions.isEmpty)
    }

    @Test("a manifest written out reads back the same")
    func roundTrip() throws {
        let manifest = try DeviceManifest(json: Self.documentedExample())
        let written = try manifest.jsonData()
        #expect(try DeviceManifest(json: written) == manifest)
        let minimal = try DeviceManifest(json: Data(#"{"apps": [{"bundleID": "a.b", "delegate": {"code": "D"}}]}"#.utf8))
        #expect(try DeviceManifest(json: minimal.jsonData()) == minimal)
    }

    @Test("a malformed manifest is refused with an error naming the field", arguments: BadManifest.all)
    func refused(_ bad: BadManifest) {
        do {
            _ = try DeviceManifest(json: Data(bad.json.utf8))
            Issue.record("accepted: \(bad.json)")
        } catch let error as ManifestError {
            #expect(error.field == bad.field, "\(error)")
            #expect(error.code == bad.code, "\(error)")
            #expect(!error.reason.isEmpty)
        } catch {
            Issue.record("not a ManifestError: \(error)")
        }
    }

    @Test("a typo gets a suggestion")
    func suggestion() {
        #expect(throws: ManifestError.self) { try DeviceManifest(json: Data(BadManifest.app(#""catgories": []"#).utf8)) }
        do {
            _ = try DeviceManifest(json: Data(BadManifest.app(#""catgories": []"#).utf8))
        } catch {
            #expect("\(error)".contains(#"did you mean "categories"?"#))
        }
    }

    @Test("a manifest naming Swift code the host did not supply is refused when the device starts")
    func codeNotSupplied() async throws {
        let json = #"{"apps": [{"bundleID": "com.example.app", "serviceExtension": {"code": "NotificationService"}}]}"#
        await #expect(
            throws: ManifestError(
                .codeNotSupplied,
                field: "apps[0].serviceExtension.code",
                reason: #"no Swift service extension named "NotificationService" was supplied"#
            )
        ) {
            _ = try await makeDevice(json)
        }
    }
}
