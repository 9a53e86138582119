import Foundation

/// What an app asks permission for (Apple's `UNAuthorizationOptions`). Raw values match the
/// SDK header (spec §C.1).
public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit mask.
    public let rawValue: UInt
    /// Creates options from a bit mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Update the app's badge.
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// Play sounds.
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// Display alerts.
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    /// Show notifications in CarPlay.
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    /// Play critical alert sounds.
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    /// The app provides its own notification settings screen.
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    /// Deliver quietly without asking (provisional authorization).
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
    /// Deprecated: announcement is always included.
    public static let announcement = UNAuthorizationOptions(rawValue: 1 << 7)
    /// Deprecated: use the time-sensitive entitlement.
    public static let timeSensitive = UNAuthorizationOptions(rawValue: 1 << 8)
}

/// How a notification is presented while the app is in the foreground (Apple's
/// `UNNotificationPresentationOptions`). Raw values match the SDK header (spec §C.2).
public struct UNNotificationPresentationOptions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit mask.
    public let rawValue: UInt
    /// Creates options from a bit mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Apply the notification's badge.
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    /// Play the notification's sound.
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    /// Deprecated (iOS 14): the same as `[.list, .banner]`.
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    /// Add the notification to Notification Center.
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    /// Show the notification as a banner.
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)

    /// Whether the notification goes to the Notification Center list.
    public var showsInList: Bool { contains(.list) || contains(.alert) }
    /// Whether the notification shows as a banner.
    public var showsBanner: Bool { contains(.banner) || contains(.alert) }
}

/// Whether the app may post notifications (Apple's `UNAuthorizationStatus`).
public enum UNAuthorizationStatus: Int, Sendable, Codable, Hashable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// The user refused.
    case denied = 1
    /// The user allowed notifications.
    case authorized = 2
    /// Quiet, provisional delivery without asking.
    case provisional = 3
    /// App Clip ephemeral authorization.
    case ephemeral = 4

    /// Whether notifications may be posted.
    public var allowsDelivery: Bool { self == .authorized || self == .provisional || self == .ephemeral }
}

/// The state of one notification setting (Apple's `UNNotificationSetting`).
public enum UNNotificationSetting: Int, Sendable, Codable, Hashable {
    /// The setting does not apply.
    case notSupported = 0
    /// The setting is off.
    case disabled = 1
    /// The setting is on.
    case enabled = 2
}

/// How alerts appear (Apple's `UNAlertStyle`).
public enum UNAlertStyle: Int, Sendable, Codable, Hashable {
    /// No alert.
    case none = 0
    /// A banner that goes away by itself.
    case banner = 1
    /// An alert that stays until the person acts.
    case alert = 2
}

/// When notification previews show (Apple's `UNShowPreviewsSetting`).
public enum UNShowPreviewsSetting: Int, Sendable, Codable, Hashable {
    /// Always.
    case always = 0
    /// Only when the device is unlocked.
    case whenAuthenticated = 1
    /// Never.
    case never = 2
}

/// The app's notification settings (Apple's `UNNotificationSettings`).
public final class UNNotificationSettings: NSObject, Sendable {
    /// The authorization status.
    public let authorizationStatus: UNAuthorizationStatus
    /// Whether alerts are shown.
    public let alertSetting: UNNotificationSetting
    /// Whether badges are applied.
    public let badgeSetting: UNNotificationSetting
    /// Whether sounds play.
    public let soundSetting: UNNotificationSetting
    /// Whether critical alerts are allowed.
    public let criticalAlertSetting: UNNotificationSetting
    /// Whether notifications appear in Notification Center.
    public let notificationCenterSetting: UNNotificationSetting
    /// Whether notifications appear on the lock screen.
    public let lockScreenSetting: UNNotificationSetting
    /// Whether notifications appear in CarPlay.
    public let carPlaySetting: UNNotificationSetting
    /// Whether time-sensitive notifications break through Focus.
    public let timeSensitiveSetting: UNNotificationSetting
    /// Whether the app provides its own settings screen.
    public let providesAppNotificationSettings: Bool
    /// Whether Siri announces notifications.
    public let announcementSetting: UNNotificationSetting
    /// Whether notifications wait for the scheduled summary (the person's choice; Herald: disabled).
    public let scheduledDeliverySetting: UNNotificationSetting
    /// Whether communication notifications break through as direct messages (Herald: as time-sensitive).
    public let directMessagesSetting: UNNotificationSetting
    /// How alerts appear when the device is unlocked: banners unless alerts are off.
    public let alertStyle: UNAlertStyle
    /// When previews show (Herald: always).
    public let showPreviewsSetting: UNShowPreviewsSetting

    init(status: UNAuthorizationStatus, granted: UNAuthorizationOptions) {
        func setting(_ option: UNAuthorizationOptions) -> UNNotificationSetting {
            status.allowsDelivery && granted.contains(option) ? .enabled : .disabled
        }
        authorizationStatus = status
        alertSetting = setting(.alert)
        badgeSetting = setting(.badge)
        soundSetting = setting(.sound)
        criticalAlertSetting = setting(.criticalAlert)
        notificationCenterSetting = status.allowsDelivery ? .enabled : .disabled
        lockScreenSetting = status.allowsDelivery ? .enabled : .disabled
        carPlaySetting = setting(.carPlay)
        timeSensitiveSetting = setting(.timeSensitive)
        providesAppNotificationSettings = granted.contains(.providesAppNotificationSettings)
        announcementSetting = status.allowsDelivery ? .enabled : .disabled
        scheduledDeliverySetting = .disabled
        directMessagesSetting = timeSensitiveSetting
        alertStyle = alertSetting == .enabled ? .banner : .none
        showPreviewsSetting = .always
        super.init()
    }
}
