import Foundation

/// The base class of a notification service extension (Apple's
/// `UNNotificationServiceExtension`): subclass it and override both methods, exactly as in the
/// Xcode template.
///
/// The ``DeviceRuntime`` creates one instance per notification and calls
/// ``didReceive(_:withContentHandler:)`` only for alert notifications (title, subtitle or body)
/// whose `aps` has `mutable-content: 1` (spec §C.7). The extension has
/// ``DeviceRuntime/Configuration/serviceExtensionBudget`` (30 s) on the runtime's clock; then
/// ``serviceExtensionTimeWillExpire()`` is called, and whatever content was handed over by the
/// time it returns is shown — otherwise the original content.
open class UNNotificationServiceExtension: NSObject {
    /// Creates the extension (called by the runtime's factory).
    public override init() { super.init() }

    /// Set by the runtime before ``didReceive(_:withContentHandler:)`` when a fault rule's `extensionTimeout` spends
    /// the budget at once (docs/faults.md): an extension Herald builds in starts no work it would only cancel.
    package var timeBudgetIsSpent = false

    /// Modify the request's content and call `contentHandler` once with the content to show.
    /// The handler is `@Sendable`: it may be called from any thread (a download callback).
    /// An override may declare it as `@escaping (UNNotificationContent) -> Void`, as the Xcode
    /// template does. The base implementation hands over the original content at once.
    open func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    /// Called when the budget runs out: call the content handler now with your best attempt.
    /// The base implementation does nothing, so the original content is shown.
    open func serviceExtensionTimeWillExpire() {}
}

/// What happened to a notification's service extension run.
public enum ServiceExtensionOutcome: Sendable, Hashable, Codable {
    /// The extension was not run; the reason says which rule applied.
    case notRun(reason: String)
    /// The extension handed over content within the budget.
    case completed
    /// The budget expired and the extension handed over its best attempt in
    /// `serviceExtensionTimeWillExpire()`.
    case expiredWithBestAttempt
    /// The budget expired and nothing was handed over: the original content was shown.
    case expiredShowingOriginal
    /// The extension could not run (its factory threw): the original content was shown.
    case failedShowingOriginal(reason: String)

    /// Whether the extension's content (not the original) was shown.
    public var usedExtensionContent: Bool { self == .completed || self == .expiredWithBestAttempt }
}
