import HeraldSimulator
import HeraldUserNotifications
import Testing

// The seeds' fixtures — device manifests, payloads, the seed-003 table — shared by the tests that run a seed on a
// simulated device (HeraldSimulatorTests) and those that run it end to end through a server (HeraldTestingTests).
// A manifest's `name` names the device (the server tests give one; a simulated device needs none).

/// The manifest's `"name": …, ` member, or nothing.
private func nameMember(_ name: String?) -> String {
    name.map { #""name": "\#($0)", "# } ?? ""
}

/// A minimal but real PNG.
public enum SeedFixture {
    public static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D] + Array("IHDR".utf8)
        + [0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE]
        + [0x00, 0x00, 0x00, 0x00] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
}

/// Seed 000 ("iOS 10: Notification Service Extensions"): a messaging app whose backend knows the sender only by an
/// id; the service extension replaces it with the contact's name from the device.
public enum Seed000 {
    public static let bundleID = "com.example.messages"

    /// The suspended messaging app and its rewriting service extension; `delay` adds a step that waits that many
    /// seconds, `bestAttemptOnExpiry` (when given) says what shows when the extension runs out of time.
    public static func manifest(name: String? = nil, delay: Int? = nil, bestAttemptOnExpiry: Bool? = nil) -> String {
        let delayStep = delay.map { #", {"kind": "delay", "seconds": \#($0)}"# } ?? ""
        let expiry = bestAttemptOnExpiry.map { #", "bestAttemptOnExpiry": \#($0)"# } ?? ""
        return """
            {
              \(nameMember(name))"apps": [{
                "bundleID": "\(bundleID)",
                "state": "suspended",
                "serviceExtension": {
                  "steps": [{
                    "kind": "rewrite",
                    "key": "sender-id",
                    "names": {"4711": "Alice", "4712": "Bob"},
                    "fallback": "Unknown sender",
                    "title": "{name}",
                    "body": "{name}: {body}"
                  }\(delayStep)]\(expiry)
                }
              }]
            }
            """
    }

    /// A mutable alert from sender 4711.
    public static let message =
        #"{"aps":{"alert":{"title":"New message","body":"Lunch at noon?"},"mutable-content":1,"sound":"default"},"sender-id":"4711"}"#
}

/// Seed 001 ("How to replace the content of an iOS notification"): apns-collapse-id, or a service extension that
/// removes the delivered notification carrying the same custom id.
public enum Seed001 {
    public static let bundleID = "com.example.live"

    /// The app in the background, its service extension removing the delivered one with the same custom-payload-id.
    public static func manifest(name: String? = nil) -> String {
        """
        {
          \(nameMember(name))"apps": [{
            "bundleID": "\(bundleID)",
            "state": "background",
            "serviceExtension": {"steps": [{"kind": "removeDeliveredWithSameKey", "key": "custom-payload-id"}]}
          }]
        }
        """
    }
}

/// Seed 002 ("IOS10 push must see UNNotificationContentExtension"): the service extension rewrites the text and sets
/// category1; the content extension registered for category1 (ratio 0.5, a default media button at
/// (100, 100, 100, 100) in blue) draws the expanded notification.
public enum Seed002 {
    public static let bundleID = "com.example.xu"

    /// The app, category1's actions, both extensions; `actionResponse` is how the content extension answers actions.
    public static func manifest(name: String? = nil, actionResponse: String? = nil) -> String {
        let response = actionResponse.map { #", "actionResponse": "\#($0)""# } ?? ""
        return """
            {
              \(nameMember(name))"apps": [{
                "bundleID": "\(bundleID)",
                "state": "background",
                "categories": [{
                  "identifier": "category1",
                  "actions": [
                    {"identifier": "comment", "title": "Comment", "options": ["foreground"],
                     "textInput": {"buttonTitle": "Send", "placeholder": "Say something"}},
                    {"identifier": "like", "title": "Like"},
                    {"identifier": "cancel", "title": "Cancel", "options": ["destructive"]}
                  ]
                }],
                "serviceExtension": {"steps": [
                  {"kind": "rewrite", "title": "I am heading", "subtitle": "I am sub title", "body": "different from Xu"},
                  {"kind": "setCategory", "category": "category1"}
                ]},
                "contentExtensions": [{
                  "UNNotificationExtensionCategory": "category1",
                  "UNNotificationExtensionInitialContentSizeRatio": 0.5,
                  "lines": ["{payload.aps.from}", "{payload.aps.imageAbsoluteString}"],
                  "mediaPlayPauseButton": {"type": "default", "frame": [100, 100, 100, 100], "tint": "#0000FF"}\(response)
                }]
              }]
            }
            """
    }

    /// The payload the seed prints in didReceiveNotification:.
    public static let payload = """
        {"aps":{"alert":"This is some fancy message.","badge":1,"from":"Hello, I'm Xu",\
        "imageAbsoluteString":"http://upload.univs.cn/2012/0104/1325645511371.jpg","mutable-content":1,"sound":"default"}}
        """
}

/// Seed 003 ("How to handle notifications in background mode"): which callback runs, and whether the alert shows,
/// for each app state with and without content-available. The seed's app predates iOS 10: its notification
/// delegate implements neither willPresent nor didReceive.
public enum Seed003 {
    public static let bundleID = "com.example.podcasts"

    /// The app in `state`; `delegate` replaces the seed's delegate (neither willPresent nor didReceive), `extra`
    /// adds members to the app.
    public static func manifest(name: String? = nil, state: AppLifecycleState, delegate: String? = nil, extra: String = "") -> String {
        let delegate = delegate ?? #"{"implementsWillPresent": false, "implementsDidReceive": false}"#
        return """
            {\(nameMember(name))"apps": [{"bundleID": "\(bundleID)", "state": "\(state.rawValue)",
              "delegate": \(delegate)\(extra)}]}
            """
    }

    /// The app's `extra` for a background push budget of one push an hour.
    public static let budgetOfOne = #", "backgroundPushBudget": {"limit": 1, "window": 3600}"#

    /// The seed's alert, with or without content-available.
    public static func payload(contentAvailable: Bool) -> String {
        contentAvailable
            ? #"{"aps":{"alert":"New episode","sound":"default","content-available":1}}"#
            : #"{"aps":{"alert":"New episode","sound":"default"}}"#
    }

    /// A silent push.
    public static let silent = #"{"aps":{"content-available":1}}"#

    /// One row of the seed's table, as the device reports it (and the trace records it).
    public struct Row: CustomTestStringConvertible, Sendable {
        public let contentAvailable: Bool
        public let state: AppLifecycleState
        /// The reports on arrival, in order.
        public let events: [String]
        /// The state while the app handled it, when it did.
        public let stateWhileHandling: AppLifecycleState?
        /// The `dropped` reason on arrival, if any.
        public let dropped: DropReason?
        /// Calls the app gets when the user then taps the alert (nil: not part of the row).
        public let tapCalls: [AppCall]?

        public var testDescription: String { "content-available \(contentAvailable ? "present" : "absent") × \(state.rawValue)" }

        init(_ row: (Bool, AppLifecycleState, [String], AppLifecycleState?, DropReason?, [AppCall]?)) {
            (contentAvailable, state, events, stateWhileHandling, dropped, tapCalls) = row
        }
    }

    /// The seed's table, row for row: content-available, app state, reports on arrival, state while the app handled
    /// it, `dropped` reason, calls on a tap. One line a row.
    public static let table: [Row] = [
        (true, .foreground, ["dropped", "background"], .foreground, .notPresented, nil),
        (true, .background, ["displayed", "background"], .background, nil, nil),
        (true, .suspended, ["displayed", "background"], .background, nil, nil),
        (true, .terminatedByUser, ["displayed", "dropped"], nil, .appTerminatedByUser, nil),
        (false, .foreground, ["dropped", "background"], .foreground, .notPresented, nil),
        (false, .suspended, ["displayed"], nil, nil, [.willEnterForeground, .didBecomeActive, .didReceiveRemoteNotification]),
        (false, .background, ["displayed"], nil, nil, [.willEnterForeground, .didBecomeActive, .didReceiveRemoteNotification]),
        (false, .terminatedByUser, ["displayed"], nil, nil, [.didFinishLaunching, .didBecomeActive, .didReceiveRemoteNotification]),
    ].map(Row.init)
}

/// Seed 004 ("iOS 10.0 UserNotification 介绍"): a mutable alert with the image URL under "image"; the service
/// extension downloads it and attaches it. The seed's categories give the comment action a text field.
public enum Seed004 {
    public static let bundleID = "com.example.gallery"

    /// The suspended app, the seed's categories, the downloading service extension; `maximumBytes` limits the
    /// download.
    public static func manifest(name: String? = nil, maximumBytes: Int? = nil) -> String {
        let limit = maximumBytes.map { #", "maximumBytes": \#($0)"# } ?? ""
        return """
            {
              \(nameMember(name))"apps": [{
                "bundleID": "\(bundleID)",
                "state": "suspended",
                "categories": [
                  {"identifier": "InputSomething"},
                  {"identifier": "myCatrgory", "actions": [
                    {"identifier": "comment", "title": "写评论", "options": ["foreground"],
                     "textInput": {"buttonTitle": "发送", "placeholder": "写点什么吧"}},
                    {"identifier": "zan", "title": "点赞", "options": ["foreground"]},
                    {"identifier": "cancel", "title": "取消", "options": ["destructive"]}
                  ]}
                ],
                "serviceExtension": {"steps": [{"kind": "downloadAttachment", "key": "image", "identifier": "image"\(limit)}]}
              }]
            }
            """
    }

    /// The seed's mutable alert naming `image`.
    public static func payload(image: String) -> String {
        #"{"aps":{"alert":"IOS10 推送测试","sound":"default","badge":1,"mutable-content":1,"category":"InputSomething"},"image":"\#(image)"}"#
    }

    /// An alert of the seed's category with three actions.
    public static let categoryPayload = #"{"aps":{"alert":"Test message!","sound":"default","category":"myCatrgory"}}"#
}
