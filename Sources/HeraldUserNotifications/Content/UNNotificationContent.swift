import Foundation
import Synchronization

/// The content of a notification, read-only (Apple's `UNNotificationContent`).
///
/// Use ``UNMutableNotificationContent`` to build content, or `mutableCopy()` to edit a copy in
/// a service extension. The state lives behind a `Mutex`, so content can be handed to the
/// `@Sendable` content handler from any thread.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // All stored state is this Mutex; subclasses in this module only go through it.
    let storage: Mutex<NotificationContentValue>

    /// Creates empty content.
    public override init() {
        storage = Mutex(NotificationContentValue())
        super.init()
    }

    /// Creates content from its value.
    public init(value: NotificationContentValue) {
        storage = Mutex(value)
        super.init()
    }

    /// A copy of the value behind this content.
    public var value: NotificationContentValue { storage.withLock { $0 } }

    /// The title.
    open var title: String { storage.withLock { $0.title } }
    /// The subtitle.
    open var subtitle: String { storage.withLock { $0.subtitle } }
    /// The body.
    open var body: String { storage.withLock { $0.body } }
    /// The badge: `nil` leaves the badge unchanged, `0` removes it.
    open var badge: NSNumber? { storage.withLock { $0.badge }.map { NSNumber(value: $0) } }
    /// The sound.
    open var sound: UNNotificationSound? { storage.withLock { $0.sound } }
    /// Custom data; for a remote notification, the whole payload including `aps`.
    open var userInfo: [AnyHashable: Any] { storage.withLock { $0.userInfo }.userInfoValue }
    /// The category identifier.
    open var categoryIdentifier: String { storage.withLock { $0.categoryIdentifier } }
    /// The thread identifier used for grouping.
    open var threadIdentifier: String { storage.withLock { $0.threadIdentifier } }
    /// Attachments.
    open var attachments: [UNNotificationAttachment] { storage.withLock { $0.attachments } }
    /// The launch image name.
    open var launchImageName: String { storage.withLock { $0.launchImageName } }
    /// The target content identifier.
    open var targetContentIdentifier: String? { storage.withLock { $0.targetContentIdentifier } }
    /// The interruption level.
    open var interruptionLevel: UNNotificationInterruptionLevel { storage.withLock { $0.interruptionLevel } }
    /// The relevance score.
    open var relevanceScore: Double { storage.withLock { $0.relevanceScore } }
    /// The Focus filter criteria.
    open var filterCriteria: String? { storage.withLock { $0.filterCriteria } }
    /// The summary argument.
    open var summaryArgument: String { storage.withLock { $0.summaryArgument } }
    /// The summary argument count.
    open var summaryArgumentCount: Int { storage.withLock { $0.summaryArgumentCount } }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(value: value) }

    /// A ``UNMutableNotificationContent`` copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(value: value) }

    /// Content is equal when its values are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return other.value == value
    }

    /// A hash of the value.
    open override var hash: Int { value.hashValue }

    /// A short description for logs.
    open override var description: String {
        let value = value
        return "<UNNotificationContent title=\"\(value.title)\" subtitle=\"\(value.subtitle)\" body=\"\(value.body)\">"
    }
}

/// Editable notification content (Apple's `UNMutableNotificationContent`).
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    /// The title.
    open override var title: String {
        get { super.title }
        set { storage.withLock { $0.title = newValue } }
    }
    /// The subtitle.
    open override var subtitle: String {
        get { super.subtitle }
        set { storage.withLock { $0.subtitle = newValue } }
    }
    /// The body.
    open override var body: String {
        get { super.body }
        set { storage.withLock { $0.body = newValue } }
    }
    /// The badge: `nil` leaves the badge unchanged, `0` removes it.
    open override var badge: NSNumber? {
        get { super.badge }
        set { storage.withLock { $0.badge = newValue?.intValue } }
    }
    /// The sound.
    open override var sound: UNNotificationSound? {
        get { super.sound }
        set { storage.withLock { $0.sound = newValue } }
    }
    /// Custom data. Only property-list/JSON values are kept (see ``JSONValue``).
    open override var userInfo: [AnyHashable: Any] {
        get { super.userInfo }
        set {
            let converted = JSONValue.stringKeyed(newValue)
            storage.withLock { $0.userInfo = converted }
        }
    }
    /// The category identifier.
    open override var categoryIdentifier: String {
        get { super.categoryIdentifier }
        set { storage.withLock { $0.categoryIdentifier = newValue } }
    }
    /// The thread identifier.
    open override var threadIdentifier: String {
        get { super.threadIdentifier }
        set { storage.withLock { $0.threadIdentifier = newValue } }
    }
    /// Attachments.
    open override var attachments: [UNNotificationAttachment] {
        get { super.attachments }
        set { storage.withLock { $0.attachments = newValue } }
    }
    /// The launch image name.
    open override var launchImageName: String {
        get { super.launchImageName }
        set { storage.withLock { $0.launchImageName = newValue } }
    }
    /// The target content identifier.
    open override var targetContentIdentifier: String? {
        get { super.targetContentIdentifier }
        set { storage.withLock { $0.targetContentIdentifier = newValue } }
    }
    /// The interruption level.
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { super.interruptionLevel }
        set { storage.withLock { $0.interruptionLevel = newValue } }
    }
    /// The relevance score, clamped to 0–1.
    open override var relevanceScore: Double {
        get { super.relevanceScore }
        set { storage.withLock { $0.relevanceScore = min(1, max(0, newValue)) } }
    }
    /// The Focus filter criteria.
    open override var filterCriteria: String? {
        get { super.filterCriteria }
        set { storage.withLock { $0.filterCriteria = newValue } }
    }
    /// The summary argument.
    open override var summaryArgument: String {
        get { super.summaryArgument }
        set { storage.withLock { $0.summaryArgument = newValue } }
    }
    /// The summary argument count.
    open override var summaryArgumentCount: Int {
        get { super.summaryArgumentCount }
        set { storage.withLock { $0.summaryArgumentCount = newValue } }
    }
}
