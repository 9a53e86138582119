import HeraldUserNotifications

/// The names a manifest uses for Apple's option sets and enumerations: Apple's Swift names.
enum ManifestNames {
    static let authorizationOptions: KeyValuePairs<String, UNAuthorizationOptions> = [
        "alert": .alert, "sound": .sound, "badge": .badge, "carPlay": .carPlay, "criticalAlert": .criticalAlert,
        "providesAppNotificationSettings": .providesAppNotificationSettings, "provisional": .provisional,
        "announcement": .announcement, "timeSensitive": .timeSensitive,
    ]

    static let presentationOptions: KeyValuePairs<String, UNNotificationPresentationOptions> = [
        "banner": .banner, "list": .list, "sound": .sound, "badge": .badge, "alert": .alert,
    ]

    static let actionOptions: KeyValuePairs<String, UNNotificationActionOptions> = [
        "foreground": .foreground, "destructive": .destructive, "authenticationRequired": .authenticationRequired,
    ]

    static let categoryOptions: KeyValuePairs<String, UNNotificationCategoryOptions> = [
        "customDismissAction": .customDismissAction, "allowInCarPlay": .allowInCarPlay,
        "hiddenPreviewsShowTitle": .hiddenPreviewsShowTitle, "hiddenPreviewsShowSubtitle": .hiddenPreviewsShowSubtitle,
        "allowAnnouncement": .allowAnnouncement,
    ]

    static let appStates: KeyValuePairs<String, AppLifecycleState> = [
        "foreground": .foreground, "background": .background, "suspended": .suspended, "notRunning": .notRunning,
        "terminatedByUser": .terminatedByUser,
    ]

    static let mediaButtonTypes: KeyValuePairs<String, UNNotificationContentExtensionMediaPlayPauseButtonType> = [
        "none": .none, "default": .default, "overlay": .overlay,
    ]

    static let responseOptions: KeyValuePairs<String, UNNotificationContentExtensionResponseOption> = [
        "doNotDismiss": .doNotDismiss, "dismiss": .dismiss, "dismissAndForwardAction": .dismissAndForwardAction,
    ]

    static let authorizationStatuses: KeyValuePairs<String, UNAuthorizationStatus> = [
        "notDetermined": .notDetermined, "denied": .denied, "authorized": .authorized, "provisional": .provisional,
        "ephemeral": .ephemeral,
    ]

    /// The names of the options in a set, in table order.
    static func names<Options: OptionSet>(of options: Options, in table: KeyValuePairs<String, Options>) -> [String]
    where Options.Element == Options {
        table.filter { options.contains($0.value) && !$0.value.isEmpty }.map(\.key)
    }

    /// The name of a value.
    static func name<Value: Equatable>(of value: Value, in table: KeyValuePairs<String, Value>) -> String {
        table.first { $0.value == value }?.key ?? "\(value)"
    }
}
