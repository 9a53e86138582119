import Foundation

/// What a device shows, as a `Codable` value a console or a network API can display: the
/// badge, Notification Center grouped by thread, the pending schedule and the expanded
/// content extension.
public struct NotificationCenterSnapshot: Sendable, Hashable, Codable {
    /// An attachment as listed.
    public struct Attachment: Sendable, Hashable, Codable {
        /// The identifier.
        public var identifier: String
        /// The UTI.
        public var type: String
        /// The file name in the center's store.
        public var fileName: String
        /// The size in bytes.
        public var size: Int
        /// Whether the thumbnail is hidden.
        public var thumbnailHidden: Bool
        /// The clipping rectangle, if any.
        public var thumbnailClippingRect: [Double]?
        /// The thumbnail time, if any.
        public var thumbnailTime: Double?
        /// The image itself as a `data:` URL, so a console can draw the thumbnail: JPEG, PNG and GIF files up to
        /// ``NotificationCenterSnapshot/thumbnailLimit`` bytes whose thumbnail is not hidden; nil otherwise.
        public var thumbnail: String?
    }

    /// The same snapshot without the attachments' thumbnails (for a screen that would be too large with them).
    public func withoutThumbnails() -> NotificationCenterSnapshot {
        var copy = self
        for thread in copy.threads.indices {
            for notification in copy.threads[thread].notifications.indices {
                for attachment in copy.threads[thread].notifications[notification].attachments.indices {
                    copy.threads[thread].notifications[notification].attachments[attachment].thumbnail = nil
                }
            }
        }
        return copy
    }

    /// The largest image file a snapshot carries as a thumbnail (32 KiB, a Herald choice: screens stay small
    /// enough to send on every change; larger images are listed with their type and size only).
    public static let thumbnailLimit = 32 * 1024

    /// An action button.
    public struct Action: Sendable, Hashable, Codable {
        /// The identifier.
        public var identifier: String
        /// The title.
        public var title: String
        /// The options' raw value.
        public var options: UInt
        /// The text field placeholder for text input actions.
        public var textInputPlaceholder: String?
    }

    /// A notification as listed.
    public struct Notification: Sendable, Hashable, Codable {
        /// The request identifier.
        public var identifier: String
        /// The delivery date.
        public var date: Date
        /// Title, subtitle, body.
        public var title: String
        /// The subtitle.
        public var subtitle: String
        /// The body.
        public var body: String
        /// The badge the notification carried.
        public var badge: Int?
        /// The sound name, if any.
        public var sound: String?
        /// The category.
        public var categoryIdentifier: String
        /// The thread.
        public var threadIdentifier: String
        /// The interruption level.
        public var interruptionLevel: String
        /// The relevance score.
        public var relevanceScore: Double
        /// The target content identifier.
        public var targetContentIdentifier: String?
        /// Whether it came from APNs.
        public var isRemote: Bool
        /// Whether it was shown as a banner.
        public var presentedAsBanner: Bool
        /// Attachments.
        public var attachments: [Attachment]
        /// The action buttons (from the registered category).
        public var actions: [Action]
        /// The content extension that draws its expanded interface, if any.
        public var contentExtension: String?
    }

    /// Notifications sharing a thread identifier ("" for the app's default group).
    public struct Thread: Sendable, Hashable, Codable {
        /// The thread identifier.
        public var threadIdentifier: String
        /// Newest first.
        public var notifications: [Notification]
    }

    /// A scheduled request.
    public struct Pending: Sendable, Hashable, Codable {
        /// The identifier.
        public var identifier: String
        /// The trigger kind (`timeInterval`, `calendar`, `location`, `immediate`).
        public var trigger: String
        /// The next fire date, if it fires on a date.
        public var nextFireDate: Date?
        /// The title.
        public var title: String
    }

    /// The app's bundle identifier.
    public var bundleIdentifier: String
    /// When the snapshot was taken (runtime clock).
    public var capturedAt: Date
    /// The app's state.
    public var appState: AppLifecycleState
    /// The authorization status.
    public var authorizationStatus: UNAuthorizationStatus
    /// The icon badge, `nil` when none is shown.
    public var badge: Int?
    /// Notification Center, thread groups ordered by their newest notification.
    public var threads: [Thread]
    /// The schedule.
    public var pending: [Pending]
    /// The expanded content extension, if any.
    public var expandedContentExtension: ContentExtensionRendering?

    /// Plain text for a terminal.
    public var consoleText: String {
        var lines = ["\(bundleIdentifier) — \(appState.rawValue)" + (badge.map { " — badge \($0)" } ?? "")]
        for thread in threads {
            lines.append("▸ thread \(thread.threadIdentifier.isEmpty ? "(app)" : thread.threadIdentifier)")
            for note in thread.notifications {
                lines.append("  • [\(note.identifier)] \(note.title)" + (note.subtitle.isEmpty ? "" : " — \(note.subtitle)"))
                if !note.body.isEmpty { lines.append("    \(note.body)") }
                for attachment in note.attachments { lines.append("    📎 \(attachment.fileName) (\(attachment.type))") }
                if !note.actions.isEmpty { lines.append("    " + note.actions.map { "[\($0.title)]" }.joined(separator: " ")) }
            }
        }
        for request in pending {
            lines.append("⏱ \(request.identifier) (\(request.trigger))" + (request.nextFireDate.map { " at \($0)" } ?? ""))
        }
        if let expandedContentExtension { lines.append(expandedContentExtension.consoleText) }
        return lines.joined(separator: "\n")
    }
}

extension DeviceRuntime {
    /// What the device shows now.
    public func snapshot() -> NotificationCenterSnapshot {
        let (state, pending) = center.state.withLock { ($0, $0.pending) }
        var threads: [NotificationCenterSnapshot.Thread] = []
        for entry in state.delivered {
            let note = snapshot(of: entry, categories: state.categories)
            if let index = threads.firstIndex(where: { $0.threadIdentifier == note.threadIdentifier }) {
                threads[index].notifications.append(note)
            } else {
                threads.append(NotificationCenterSnapshot.Thread(threadIdentifier: note.threadIdentifier, notifications: [note]))
            }
        }
        let schedule = pending.sorted { $0.addedSequence < $1.addedSequence }.map { entry in
            NotificationCenterSnapshot.Pending(
                identifier: entry.request.identifier,
                trigger: Self.triggerKind(entry.request.trigger),
                nextFireDate: entry.nextFireDate,
                title: entry.request.content.title
            )
        }
        return NotificationCenterSnapshot(
            bundleIdentifier: configuration.bundleIdentifier,
            capturedAt: clock.now,
            appState: application.lifecycleState,
            authorizationStatus: state.authorizationStatus,
            badge: state.badgeAllowed && state.badge > 0 ? state.badge : nil,
            threads: threads,
            pending: schedule,
            expandedContentExtension: expandedRendering
        )
    }

    /// The attachment's image as a `data:` URL, read from the center's store (see ``NotificationCenterSnapshot/Attachment/thumbnail``).
    static func thumbnail(of attachment: UNNotificationAttachment) -> String? {
        let mediaTypes = ["public.jpeg": "image/jpeg", "public.png": "image/png", "com.compuserve.gif": "image/gif"]
        guard !attachment.attachmentOptions.thumbnailHidden, attachment.fileSize <= NotificationCenterSnapshot.thumbnailLimit,
            let mediaType = mediaTypes[attachment.type], let bytes = FileManager.default.contents(atPath: attachment.url.path)
        else { return nil }
        return "data:\(mediaType);base64,\(bytes.base64EncodedString())"
    }

    static func triggerKind(_ trigger: UNNotificationTrigger?) -> String {
        switch trigger {
        case is UNTimeIntervalNotificationTrigger: "timeInterval"
        case is UNCalendarNotificationTrigger: "calendar"
        case is UNLocationNotificationTrigger: "location"
        case is UNPushNotificationTrigger: "push"
        default: "immediate"
        }
    }

    private func snapshot(of entry: DeliveredEntry, categories: Set<UNNotificationCategory>) -> NotificationCenterSnapshot.Notification {
        let content = entry.notification.request.content.value
        let category = categories.first { $0.identifier == content.categoryIdentifier }
        return NotificationCenterSnapshot.Notification(
            identifier: entry.notification.request.identifier,
            date: entry.notification.date,
            title: content.title,
            subtitle: content.subtitle,
            body: content.body,
            badge: content.badge,
            sound: content.sound?.displayName,
            categoryIdentifier: content.categoryIdentifier,
            threadIdentifier: content.threadIdentifier,
            interruptionLevel: content.interruptionLevel.payloadValue,
            relevanceScore: content.relevanceScore,
            targetContentIdentifier: content.targetContentIdentifier,
            isRemote: entry.isRemote,
            presentedAsBanner: entry.presentedAsBanner,
            attachments: content.attachments.map { attachment in
                NotificationCenterSnapshot.Attachment(
                    identifier: attachment.identifier,
                    type: attachment.type,
                    fileName: attachment.url.lastPathComponent,
                    size: attachment.fileSize,
                    thumbnailHidden: attachment.attachmentOptions.thumbnailHidden,
                    thumbnailClippingRect: attachment.attachmentOptions.thumbnailClippingRect,
                    thumbnailTime: attachment.attachmentOptions.thumbnailTime,
                    thumbnail: Self.thumbnail(of: attachment)
                )
            },
            actions: (category?.actions ?? []).map { action in
                NotificationCenterSnapshot.Action(
                    identifier: action.identifier,
                    title: action.title,
                    options: action.options.rawValue,
                    textInputPlaceholder: (action as? UNTextInputNotificationAction)?.textInputPlaceholder
                )
            },
            contentExtension: contentExtension(forCategory: content.categoryIdentifier)?.attributes.name
        )
    }
}
