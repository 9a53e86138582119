import Foundation
import HeraldUserNotifications

import struct HeraldCore.NotificationID

/// One thing the device did, as it reports it back over the device link (and into the
/// notification's delivery trace): an event name and a JSON object of details.
public struct DeviceReport: Sendable, Hashable, Codable {
    /// The event's name. The set can grow; unknown names from a peer are data.
    public struct Event: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The name on the wire.
        public let rawValue: String
        /// Creates an event name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The notification was shown (list and/or banner). Detail: the content as shown.
        public static let displayed = Event(rawValue: "displayed")
        /// A service extension ran. Detail: its outcome, the content before and after, whether
        /// `serviceExtensionTimeWillExpire()` was called, and the built-in steps' notes.
        public static let modified = Event(rawValue: "modified")
        /// The notification was not shown or not handed to the app. Detail: `reason` (a
        /// ``DropReason``) and `message`.
        public static let dropped = Event(rawValue: "dropped")
        /// The app's `didReceiveRemoteNotification` ran. Detail: the callbacks, states, fetch result.
        public static let background = Event(rawValue: "background")
        /// A delivered notification left Notification Center. Detail: `reason`.
        public static let removed = Event(rawValue: "removed")
        /// The user tapped a notification or chose one of its actions. Detail: `action`, `text`,
        /// the callbacks the app received.
        public static let action = Event(rawValue: "action")
        /// The user cleared a notification. Detail: whether the app was told.
        public static let dismissed = Event(rawValue: "dismissed")
        /// The user expanded a notification. Detail: the content extension's rendering, or none.
        public static let expanded = Event(rawValue: "expanded")
        /// The user pressed the content extension's media play/pause button. Detail: `playing`.
        public static let media = Event(rawValue: "media")

        /// The name.
        public var description: String { rawValue }
    }

    /// What happened.
    public var event: Event
    /// The app concerned.
    public var bundleID: String
    /// The `apns-id` of the notification concerned, when known.
    public var apnsID: NotificationID?
    /// The notification's request identifier (its collapse id, else its `apns-id`), if any.
    public var notificationIdentifier: String?
    /// When, on the device's clock.
    public var date: Date
    /// Details: a JSON object.
    public var detail: [String: HeraldUserNotifications.JSONValue]

    /// Creates a report.
    public init(
        event: Event,
        bundleID: String,
        apnsID: NotificationID?,
        notificationIdentifier: String?,
        date: Date,
        detail: [String: HeraldUserNotifications.JSONValue]
    ) {
        self.event = event
        self.bundleID = bundleID
        self.apnsID = apnsID
        self.notificationIdentifier = notificationIdentifier
        self.date = date
        self.detail = detail
    }

    /// The report as one line of JSON (dates as ISO 8601, keys sorted).
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// Why a notification was not shown or not handed to the app (the `reason` of a `dropped` report).
public struct DropReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name on the wire.
    public let rawValue: String
    /// Creates a reason.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The `apns-id` was already received: the link delivers at least once, the device shows once.
    public static let duplicate = DropReason(rawValue: "duplicate")
    /// No app with the notification's bundle id is installed.
    public static let unknownApp = DropReason(rawValue: "unknownApp")
    /// The payload is not a JSON object with an `aps` dictionary, or is larger than any APNs payload.
    public static let invalidPayload = DropReason(rawValue: "invalidPayload")
    /// The push type goes to a framework the device does not simulate (VoIP, Live Activities, …).
    public static let unsupportedPushType = DropReason(rawValue: "unsupportedPushType")
    /// The user did not allow notifications.
    public static let notAuthorized = DropReason(rawValue: "notAuthorized")
    /// In the foreground, `willPresent` (or the settings) left nothing to show.
    public static let notPresented = DropReason(rawValue: "notPresented")
    /// No alert, sound or badge, and the app did not receive it either.
    public static let nothingToShow = DropReason(rawValue: "nothingToShow")
    /// A background push for an app the user force-quit: iOS does not launch it.
    public static let appTerminatedByUser = DropReason(rawValue: "appTerminatedByUser")
    /// A background push for an app without `UIBackgroundModes` `remote-notification`.
    public static let noBackgroundMode = DropReason(rawValue: "noBackgroundMode")
    /// Over the background-push budget: held, delivered when the user next opens the app (a newer
    /// held push discards it).
    public static let backgroundPushBudget = DropReason(rawValue: "backgroundPushBudget")

    /// The name.
    public var description: String { rawValue }
}
