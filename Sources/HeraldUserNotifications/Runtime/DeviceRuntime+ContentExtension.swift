import Foundation

/// An expanded notification whose interface a content extension draws.
final class ContentExtensionSession {
    let registration: ContentExtensionRegistration
    let controller: any UNNotificationContentExtension
    let context: NSExtensionContext
    var notification: UNNotification

    init(
        registration: ContentExtensionRegistration,
        controller: any UNNotificationContentExtension,
        context: NSExtensionContext,
        notification: UNNotification
    ) {
        self.registration = registration
        self.controller = controller
        self.context = context
        self.notification = notification
    }
}

extension DeviceRuntime {
    /// The content extension whose `UNNotificationExtensionCategory` lists this category.
    nonisolated func contentExtension(forCategory category: String) -> ContentExtensionRegistration? {
        guard !category.isEmpty, center.supportsContentExtensions else { return nil }
        return contentExtensions.first { $0.attributes.categories.contains(category) }
    }

    /// The user expands (long-presses) a notification. If a content extension handles its
    /// category, the extension's controller is created, receives `didReceive(_:)`, and its
    /// rendering is returned; otherwise `nil` (the default expanded interface).
    @discardableResult
    public func expand(_ identifier: String) throws -> ContentExtensionRendering? {
        let entry = try deliveredEntry(identifier)
        let category = entry.notification.request.content.categoryIdentifier
        guard let registration = contentExtension(forCategory: category) else {
            expanded = nil
            return nil
        }
        let controller = registration.makeController()
        let context = NSExtensionContext(actions: center.category(withIdentifier: category)?.actions ?? [])
        if let viewController = controller as? UIViewController {
            viewController.extensionContext = context
            viewController.preferredContentSize = CGSize(width: 320, height: 320 * registration.attributes.initialContentSizeRatio)
            withCurrentCenter { viewController.viewDidLoad() }
        }
        let session = ContentExtensionSession(registration: registration, controller: controller, context: context, notification: entry.notification)
        expanded = session
        recordCall(.contentExtensionDidReceiveNotification, identifier)
        withCurrentCenter { controller.didReceive(entry.notification) }
        return rendering(of: session)
    }

    /// Closes the expanded interface.
    public func collapse() { expanded = nil }

    /// The expanded interface as it looks now.
    public var expandedRendering: ContentExtensionRendering? { expanded.map(rendering(of:)) }

    /// The user taps the media play/pause button: `mediaPlay()` or `mediaPause()` is called and the
    /// button toggles. Fails when no interface is expanded or its button type is `.none`.
    @discardableResult
    public func tapMediaPlayPauseButton() throws -> ContentExtensionRendering {
        guard let session = expanded else { throw InteractionError(reason: "no content extension is expanded") }
        guard session.controller.mediaPlayPauseButtonType != .none else {
            throw InteractionError(reason: "the content extension has no media button")
        }
        if session.context.isMediaPlaying {
            session.context.setPlaying(false)
            recordCall(.mediaPause, session.notification.request.identifier)
            withCurrentCenter { session.controller.mediaPause() }
        } else {
            session.context.setPlaying(true)
            recordCall(.mediaPlay, session.notification.request.identifier)
            withCurrentCenter { session.controller.mediaPlay() }
        }
        return rendering(of: session)
    }

    /// Lets the expanded extension handle an action; `nil` when it does not implement
    /// `didReceive(_:completionHandler:)` (the action goes to the app). A late answer counts
    /// as `.dismiss`.
    func contentExtensionHandle(
        _ response: UNNotificationResponse,
        in session: ContentExtensionSession
    ) async
        -> UNNotificationContentExtensionResponseOption?
    {
        let slot = CallbackSlot<UNNotificationContentExtensionResponseOption>()
        let deadline = clock.now.addingTimeInterval(configuration.delegateBudget)
        let implemented = withCurrentCenter {
            ImplementationProbe.check { session.controller.didReceive(response) { option in slot.fulfil(option) } }
        }
        guard implemented else { return nil }
        recordCall(.contentExtensionDidReceiveResponse, response.notification.request.identifier)
        return await slot.value(before: deadline, on: clock) ?? .dismiss
    }

    func rendering(of session: ContentExtensionSession) -> ContentExtensionRendering {
        let attributes = session.registration.attributes
        let content = session.notification.request.content.value
        let controller = session.controller
        let viewController = controller as? UIViewController
        let size = viewController?.preferredContentSize ?? CGSize(width: 320, height: 320 * attributes.initialContentSizeRatio)
        var media: ContentExtensionRendering.MediaButton?
        if controller.mediaPlayPauseButtonType != .none {
            let frame = controller.mediaPlayPauseButtonFrame
            media = ContentExtensionRendering.MediaButton(
                type: controller.mediaPlayPauseButtonType,
                frame: [frame.origin.x, frame.origin.y, frame.size.width, frame.size.height].map { Double($0) },
                tint: controller.mediaPlayPauseButtonTintColor.hexString,
                isPlaying: session.context.isMediaPlaying
            )
        }
        let defaultContent = [content.title, content.subtitle, content.body].filter { !$0.isEmpty }
        return ContentExtensionRendering(
            extensionName: attributes.name,
            notificationIdentifier: session.notification.request.identifier,
            headerTitle: attributes.overridesDefaultTitle ? (viewController?.title ?? configuration.appName) : configuration.appName,
            lines: controller.consoleLines,
            size: [Double(size.width), Double(size.height)],
            showsDefaultContent: !attributes.defaultContentHidden,
            defaultContent: attributes.defaultContentHidden ? [] : defaultContent,
            userInteractionEnabled: attributes.userInteractionEnabled,
            mediaButton: media,
            actions: session.context.notificationActions.map(\.title)
        )
    }
}
