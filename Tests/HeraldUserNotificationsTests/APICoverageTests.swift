import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Apple's UserNotifications, symbol by symbol (docs/api-coverage.md): each line names one symbol with Apple's
// signature, so the build fails when one is missing or changes shape. Nothing here runs except the last test.

/// Types and constants, with Apple's conformances where code relies on them.
enum UserNotificationsTypes {
    static let types: [Any.Type] = [
        UNUserNotificationCenter.self, UNNotification.self, UNNotificationRequest.self, UNNotificationResponse.self,
        UNTextInputNotificationResponse.self, UNNotificationContent.self, UNMutableNotificationContent.self,
        UNNotificationSound.self, UNNotificationSoundName.self, UNNotificationAttachment.self, UNNotificationTrigger.self,
        UNPushNotificationTrigger.self, UNTimeIntervalNotificationTrigger.self, UNCalendarNotificationTrigger.self,
        UNLocationNotificationTrigger.self, UNNotificationCategory.self, UNNotificationAction.self,
        UNTextInputNotificationAction.self, UNNotificationActionIcon.self, UNNotificationSettings.self,
        UNNotificationServiceExtension.self, UNError.self, UNError.Code.self, UNAuthorizationOptions.self,
        UNAuthorizationStatus.self, UNNotificationSetting.self, UNAlertStyle.self, UNShowPreviewsSetting.self,
        UNNotificationPresentationOptions.self, UNNotificationActionOptions.self, UNNotificationCategoryOptions.self,
        UNNotificationInterruptionLevel.self, (any UNUserNotificationCenterDelegate).self,
        (any UNNotificationContentProviding).self,
    ]

    static let constants: [String] = [
        UNNotificationDefaultActionIdentifier, UNNotificationDismissActionIdentifier, UNErrorDomain,
        UNNotificationAttachmentOptionsTypeHintKey, UNNotificationAttachmentOptionsThumbnailHiddenKey,
        UNNotificationAttachmentOptionsThumbnailClippingRectKey, UNNotificationAttachmentOptionsThumbnailTimeKey,
    ]

    static let options: [any Sendable] = [
        [UNAuthorizationOptions.badge, .sound, .alert, .carPlay, .criticalAlert, .providesAppNotificationSettings, .provisional],
        [UNAuthorizationOptions.announcement, .timeSensitive],
        [UNNotificationPresentationOptions.badge, .sound, .alert, .list, .banner],
        [UNNotificationActionOptions.authenticationRequired, .destructive, .foreground],
        [UNNotificationCategoryOptions.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle],
        [UNNotificationCategoryOptions.allowAnnouncement],
        [UNAuthorizationStatus.notDetermined, .denied, .authorized, .provisional, .ephemeral],
        [UNNotificationSetting.notSupported, .disabled, .enabled],
        [UNAlertStyle.none, .banner, .alert],
        [UNShowPreviewsSetting.always, .whenAuthenticated, .never],
        [UNNotificationInterruptionLevel.passive, .active, .timeSensitive, .critical],
        [
            UNError.Code.notificationsNotAllowed, .attachmentInvalidURL, .attachmentUnrecognizedType, .attachmentInvalidFileSize,
            .attachmentNotInDataStore, .attachmentMoveIntoDataStoreFailed, .attachmentCorrupt, .notificationInvalidNoDate,
            .notificationInvalidNoContent, .contentProvidingObjectNotAllowed, .contentProvidingInvalid, .badgeInputInvalid,
        ],
    ]
}

/// The center: its completion-handler and `async` forms.
enum UserNotificationsCenterSurface {
    static func names(_ center: UNUserNotificationCenter, request: UNNotificationRequest) async throws {
        let _: UNUserNotificationCenter = UNUserNotificationCenter.current()
        let _: (any UNUserNotificationCenterDelegate)? = center.delegate
        let _: Bool = center.supportsContentExtensions
        center.requestAuthorization(options: [.alert]) { (_: Bool, _: (any Error)?) in }
        let _: Bool = try await center.requestAuthorization(options: [.alert])
        center.getNotificationSettings { (_: UNNotificationSettings) in }
        let _: UNNotificationSettings = await center.notificationSettings()
        center.setNotificationCategories([])
        center.getNotificationCategories { (_: Set<UNNotificationCategory>) in }
        let _: Set<UNNotificationCategory> = await center.notificationCategories()
        center.add(request) { (_: (any Error)?) in }
        try await center.add(request)
        center.getPendingNotificationRequests { (_: [UNNotificationRequest]) in }
        let _: [UNNotificationRequest] = await center.pendingNotificationRequests()
        center.removePendingNotificationRequests(withIdentifiers: ["a"])
        center.removeAllPendingNotificationRequests()
        center.getDeliveredNotifications { (_: [UNNotification]) in }
        let _: [UNNotification] = await center.deliveredNotifications()
        center.removeDeliveredNotifications(withIdentifiers: ["a"])
        center.removeAllDeliveredNotifications()
        center.setBadgeCount(0) { (_: (any Error)?) in }
        try await center.setBadgeCount(0)
    }

    static func settings(_ settings: UNNotificationSettings) {
        let _: UNAuthorizationStatus = settings.authorizationStatus
        let _: [UNNotificationSetting] = [
            settings.soundSetting, settings.badgeSetting, settings.alertSetting, settings.notificationCenterSetting,
            settings.lockScreenSetting, settings.carPlaySetting, settings.criticalAlertSetting, settings.announcementSetting,
            settings.timeSensitiveSetting, settings.scheduledDeliverySetting, settings.directMessagesSetting,
        ]
        let _: UNAlertStyle = settings.alertStyle
        let _: UNShowPreviewsSetting = settings.showPreviewsSetting
        let _: Bool = settings.providesAppNotificationSettings
    }
}

/// The delegate, written as an app writes it for Apple's SDK: no `Sendable`, handlers as Apple declares them, and
/// mutable state (a class that is not `Sendable`).
final class APICoverageDelegate: NSObject, UNUserNotificationCenterDelegate {
    var lastIdentifier: String?

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        lastIdentifier = notification.request.identifier
        completionHandler([.banner, .list])
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        lastIdentifier = response.actionIdentifier
        completionHandler()
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
}

/// The `async` forms of the delegate.
final class APICoverageAsyncDelegate: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification
    ) async
        -> UNNotificationPresentationOptions
    { [.banner] }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {}
}

/// A service extension with Apple's (non-`@Sendable`) content handler.
final class APICoverageService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        contentHandler(request.content)
    }

    override func serviceExtensionTimeWillExpire() {}
}

/// A communication-notification provider, as Intents' `INSendMessageIntent` is.
final class APICoverageProvider: NSObject, UNNotificationContentProviding {
    static var supportsSecureCoding: Bool { true }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) { nil }
    override init() { super.init() }
}

/// Content, requests, triggers, sounds, attachments, categories and actions.
enum UserNotificationsValueSurface {
    static func content(_ content: UNNotificationContent, mutable: UNMutableNotificationContent) throws {
        let _: String = content.title
        let _: String = content.subtitle
        let _: String = content.body
        let _: NSNumber? = content.badge
        let _: UNNotificationSound? = content.sound
        let _: String = content.launchImageName
        let _: [AnyHashable: Any] = content.userInfo
        let _: [UNNotificationAttachment] = content.attachments
        let _: String = content.summaryArgument
        let _: Int = content.summaryArgumentCount
        let _: String = content.categoryIdentifier
        let _: String = content.threadIdentifier
        let _: String? = content.targetContentIdentifier
        let _: UNNotificationInterruptionLevel = content.interruptionLevel
        let _: Double = content.relevanceScore
        let _: String? = content.filterCriteria
        let _: UNNotificationContent = try content.updating(from: APICoverageProvider())
        mutable.title = ""
        mutable.subtitle = ""
        mutable.body = ""
        mutable.badge = 1
        mutable.sound = .default
        mutable.launchImageName = ""
        mutable.userInfo = [:]
        mutable.attachments = []
        mutable.summaryArgument = ""
        mutable.summaryArgumentCount = 0
        mutable.categoryIdentifier = ""
        mutable.threadIdentifier = ""
        mutable.targetContentIdentifier = nil
        mutable.interruptionLevel = .timeSensitive
        mutable.relevanceScore = 0.5
        mutable.filterCriteria = nil
        let _: Any = content.mutableCopy()
    }

    static func requests(_ notification: UNNotification, response: UNNotificationResponse, text: UNTextInputNotificationResponse) {
        let request = UNNotificationRequest(identifier: "a", content: UNNotificationContent(), trigger: nil)
        let _: String = request.identifier
        let _: UNNotificationContent = request.content
        let _: UNNotificationTrigger? = request.trigger
        let _: Date = notification.date
        let _: UNNotificationRequest = notification.request
        let _: UNNotification = response.notification
        let _: String = response.actionIdentifier
        let _: String = text.userText
    }

    static func triggers(_ region: CLRegion) {
        let _: UNNotificationTrigger.Type = UNPushNotificationTrigger.self
        let interval = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)
        let _: TimeInterval = interval.timeInterval
        let _: Date? = interval.nextTriggerDate()
        let _: Bool = interval.repeats
        let calendar = UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 8), repeats: false)
        let _: DateComponents = calendar.dateComponents
        let _: Date? = calendar.nextTriggerDate()
        let location = UNLocationNotificationTrigger(region: region, repeats: false)
        let _: CLRegion = location.region
    }

    static func sounds() {
        let _: [UNNotificationSound] = [
            .default, .defaultCritical, .defaultRingtone, .defaultCriticalSound(withAudioVolume: 0.5),
            .criticalSoundNamed(UNNotificationSoundName("a.caf")), .criticalSoundNamed("a.caf", withAudioVolume: 0.5),
            .ringtoneSoundNamed("r.caf"), UNNotificationSound(named: UNNotificationSoundName(rawValue: "a.caf")),
        ]
    }

    static func attachments(_ url: URL) throws {
        let attachment = try UNNotificationAttachment(identifier: "", url: url, options: nil)
        let _: String = attachment.identifier
        let _: URL = attachment.url
        let _: String = attachment.type
        let _ = try UNNotificationAttachment(identifier: "", url: url)
    }

    static func categories() {
        let icon = UNNotificationActionIcon(systemImageName: "heart")
        let _ = UNNotificationActionIcon(templateImageName: "reply")
        let action = UNNotificationAction(identifier: "a", title: "A", options: [])
        let _ = UNNotificationAction(identifier: "a", title: "A")
        let _ = UNNotificationAction(identifier: "a", title: "A", options: [.foreground], icon: icon)
        let _: String = action.identifier
        let _: String = action.title
        let _: UNNotificationActionOptions = action.options
        let _: UNNotificationActionIcon? = action.icon
        let text = UNTextInputNotificationAction(identifier: "t", title: "T", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "…")
        let _ = UNTextInputNotificationAction(
            identifier: "t",
            title: "T",
            options: [],
            icon: icon,
            textInputButtonTitle: "Send",
            textInputPlaceholder: "…"
        )
        let _ = UNTextInputNotificationAction(identifier: "t", title: "T", options: [])
        let _: String = text.textInputButtonTitle
        let _: String = text.textInputPlaceholder
        let category = UNNotificationCategory(identifier: "c", actions: [action, text], intentIdentifiers: [], options: [])
        let _ = UNNotificationCategory(identifier: "c", actions: [], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "", options: [])
        let _ = UNNotificationCategory(
            identifier: "c",
            actions: [],
            intentIdentifiers: [],
            hiddenPreviewsBodyPlaceholder: nil,
            categorySummaryFormat: nil,
            options: []
        )
        let _: String = category.identifier
        let _: [UNNotificationAction] = category.actions
        let _: [String] = category.intentIdentifiers
        let _: UNNotificationCategoryOptions = category.options
        let _: String? = category.hiddenPreviewsBodyPlaceholder
        let _: String? = category.categorySummaryFormat
    }
}

@Suite("Apple's UserNotifications surface compiles (docs/api-coverage.md)", .tier(.unit))
struct UserNotificationsAPICoverageTests {
    @Test("every listed type is present, and an app's non-Sendable delegate can be set")
    func surface() {
        #expect(UserNotificationsTypes.types.count == 34)
        let center = UNUserNotificationCenter()
        let delegate = APICoverageDelegate()
        center.delegate = delegate
        #expect(center.delegate === delegate)
    }
}
