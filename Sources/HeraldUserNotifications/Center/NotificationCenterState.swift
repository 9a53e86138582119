import Foundation

/// Which pending requests survive when more than the limit are scheduled (spec §C.3, §D.8:
/// UNCONFIRMED, so Herald makes it a setting).
public enum PendingRetentionRule: String, Sendable, Codable, Hashable {
    /// Keep the requests that fire soonest (the rule Apple documents for `UILocalNotification`);
    /// a repeating request counts once; requests without a fire date (location) fire last.
    case soonestFiring
    /// Keep the most recently added requests (the behaviour reported for `UNNotificationRequest`).
    case mostRecentlyAdded
}

/// A scheduled local request.
struct PendingEntry: Sendable {
    var request: UNNotificationRequest
    var addedSequence: Int
    var nextFireDate: Date?
}

/// A notification in Notification Center.
struct DeliveredEntry: Sendable {
    var notification: UNNotification
    var isRemote: Bool
    var presentedAsBanner: Bool
    var soundPlayed: Bool
}

/// The pure state of a notification center: authorization, categories, the schedule, the
/// delivered list and the badge. All rules that need no I/O live here.
struct NotificationCenterState: Sendable {
    var authorizationStatus: UNAuthorizationStatus = .notDetermined
    var grantedOptions: UNAuthorizationOptions = []
    var categories: Set<UNNotificationCategory> = []
    var pending: [PendingEntry] = []
    /// Newest first.
    var delivered: [DeliveredEntry] = []
    var badge = 0
    var sequence = 0
    var delegate = NotificationDelegateReference(nil)

    var settings: UNNotificationSettings { UNNotificationSettings(status: authorizationStatus, granted: grantedOptions) }

    var badgeAllowed: Bool { authorizationStatus.allowsDelivery && grantedOptions.contains(.badge) }

    /// Schedules a request, replacing a pending one with the same identifier, then applies the
    /// pending limit. Returns the requests dropped (replaced or over the limit).
    mutating func schedule(
        _ request: UNNotificationRequest,
        firstFireDate: Date?,
        limit: Int,
        rule: PendingRetentionRule
    ) -> [UNNotificationRequest] {
        var dropped = pending.filter { $0.request.identifier == request.identifier }.map(\.request)
        pending.removeAll { $0.request.identifier == request.identifier }
        sequence += 1
        pending.append(PendingEntry(request: request, addedSequence: sequence, nextFireDate: firstFireDate))
        if pending.count > limit {
            let ordered: [PendingEntry]
            switch rule {
            case .soonestFiring:
                ordered = pending.sorted {
                    let left = $0.nextFireDate ?? .distantFuture
                    let right = $1.nextFireDate ?? .distantFuture
                    return left != right ? left < right : $0.addedSequence > $1.addedSequence
                }
            case .mostRecentlyAdded:
                ordered = pending.sorted { $0.addedSequence > $1.addedSequence }
            }
            let kept = Set(ordered.prefix(limit).map(\.addedSequence))
            dropped += pending.filter { !kept.contains($0.addedSequence) }.map(\.request)
            pending.removeAll { !kept.contains($0.addedSequence) }
        }
        return dropped
    }

    /// Removes and returns the requests due at `now`; repeating ones are rescheduled.
    mutating func takeDue(at now: Date) -> [(UNNotificationRequest, Date)] {
        var due: [(UNNotificationRequest, Date, Int)] = []
        var remaining: [PendingEntry] = []
        for var entry in pending {
            guard let fireDate = entry.nextFireDate, fireDate <= now else {
                remaining.append(entry)
                continue
            }
            due.append((entry.request, fireDate, entry.addedSequence))
            if entry.request.trigger?.repeats == true,
                let next = nextRepeat(of: entry.request, after: fireDate, now: now)
            {
                entry.nextFireDate = next
                remaining.append(entry)
            }
        }
        pending = remaining
        return due.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.2 < $1.2 }.map { ($0.0, $0.1) }
    }

    /// The next repeat strictly after `now` (missed repeats while the clock jumped collapse
    /// into one delivery).
    private func nextRepeat(of request: UNNotificationRequest, after fireDate: Date, now: Date) -> Date? {
        guard let trigger = request.trigger else { return nil }
        var next = trigger.nextFireDate(after: fireDate)
        while let candidate = next, candidate <= now {
            next = trigger.nextFireDate(after: candidate)
        }
        return next
    }

    /// Adds a delivered notification at the top, replacing one with the same identifier
    /// (spec §C.4). Returns the replaced entry.
    mutating func insertDelivered(_ entry: DeliveredEntry) -> DeliveredEntry? {
        let identifier = entry.notification.request.identifier
        let replaced = delivered.first { $0.notification.request.identifier == identifier }
        delivered.removeAll { $0.notification.request.identifier == identifier }
        delivered.insert(entry, at: 0)
        return replaced
    }

    /// Applies a badge value: `nil` leaves it, `0` clears it, a positive value sets it. Only when
    /// the app may badge (spec §C.11).
    mutating func applyBadge(_ value: Int?) {
        guard badgeAllowed, let value, value >= 0 else { return }
        badge = value
    }

    /// Every URL still referenced by a pending or delivered request.
    var referencedAttachmentURLs: Set<URL> {
        Set(
            pending.flatMap { $0.request.content.attachments.map(\.url) }
                + delivered.flatMap { $0.notification.request.content.attachments.map(\.url) }
        )
    }
}
