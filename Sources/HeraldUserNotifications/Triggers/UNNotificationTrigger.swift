import Foundation

/// The condition that delivers a notification (Apple's abstract `UNNotificationTrigger`).
///
/// Subclasses: ``UNTimeIntervalNotificationTrigger``, ``UNCalendarNotificationTrigger``,
/// ``UNLocationNotificationTrigger`` and ``UNPushNotificationTrigger``. All times are read from
/// the ``NotificationClock`` of the center the request is added to.
public class UNNotificationTrigger: NSObject, @unchecked Sendable {
    // Immutable (only `let`s) and not `open`: only the module's final subclasses exist.

    /// Whether the trigger fires again after it fires.
    public let repeats: Bool

    init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }

    /// Why the trigger cannot be scheduled, if it cannot (Herald records invalid input instead
    /// of raising an Objective-C exception, see docs/device-runtime.md).
    var validationFailure: UNError? { nil }

    /// The first date at which the trigger fires when scheduled at `now`; `nil` when it does
    /// not fire on a date (location, push) or never fires.
    func firstFireDate(scheduledAt now: Date) -> Date? { nil }

    /// The next date after a firing at `previous`, for repeating triggers.
    func nextFireDate(after previous: Date) -> Date? { nil }

    /// The clock of the center bound to the current task, or the wall clock.
    static var currentClockDate: Date { UNUserNotificationCenter.current().clock.now }

    /// Triggers are equal when their class and parameters are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationTrigger else { return false }
        return type(of: other) == type(of: self) && other.repeats == repeats
    }

    /// A hash of the class.
    public override var hash: Int { ObjectIdentifier(type(of: self)).hashValue }
}

/// The trigger of a request that came from APNs (Apple's `UNPushNotificationTrigger`).
/// Created by the runtime only.
public final class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    init() { super.init(repeats: false) }
}

/// A trigger that fires after a number of seconds (Apple's
/// `UNTimeIntervalNotificationTrigger`).
///
/// The interval must be greater than zero, and at least 60 s when `repeats` is true (spec §C.3).
public final class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The interval in seconds.
    public let timeInterval: TimeInterval

    /// Creates a trigger. Apple raises an exception for an invalid interval; Herald keeps the
    /// trigger and ``UNUserNotificationCenter/add(_:withCompletionHandler:)`` rejects it with
    /// ``UNError/Code/notificationInvalidNoDate``. Use ``init(validatingTimeInterval:repeats:)``
    /// to get the error at once.
    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// Creates a trigger, throwing ``UNError/Code/notificationInvalidNoDate`` for an interval
    /// that is not greater than zero, or less than 60 s when repeating.
    public convenience init(validatingTimeInterval timeInterval: TimeInterval, repeats: Bool) throws {
        self.init(timeInterval: timeInterval, repeats: repeats)
        if let failure = validationFailure { throw failure }
    }

    override var validationFailure: UNError? {
        if !(timeInterval > 0) {
            return UNError(.notificationInvalidNoDate, reason: "time interval must be greater than 0")
        }
        if repeats && timeInterval < 60 {
            return UNError(.notificationInvalidNoDate, reason: "time interval must be at least 60 if repeating")
        }
        return nil
    }

    /// The date at which the trigger would fire if scheduled now.
    public func nextTriggerDate() -> Date? {
        validationFailure == nil ? Self.currentClockDate.addingTimeInterval(timeInterval) : nil
    }

    override func firstFireDate(scheduledAt now: Date) -> Date? {
        validationFailure == nil ? now.addingTimeInterval(timeInterval) : nil
    }

    override func nextFireDate(after previous: Date) -> Date? {
        repeats ? previous.addingTimeInterval(timeInterval) : nil
    }

    /// Equal when the interval and `repeats` are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNTimeIntervalNotificationTrigger else { return false }
        return other.timeInterval == timeInterval && other.repeats == repeats
    }
}

/// A trigger that fires when the date matches the given components (Apple's
/// `UNCalendarNotificationTrigger`). Only the fields that are set are matched.
public final class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components to match.
    public let dateComponents: DateComponents

    /// Creates a trigger.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    /// The next date after the current clock time that matches, or `nil` if none does.
    public func nextTriggerDate() -> Date? { match(after: Self.currentClockDate) }

    override var validationFailure: UNError? {
        let fields: [Int?] = [
            dateComponents.year, dateComponents.month, dateComponents.day, dateComponents.hour,
            dateComponents.minute, dateComponents.second, dateComponents.weekday, dateComponents.weekOfYear,
        ]
        return fields.contains { $0 != nil } ? nil : UNError(.notificationInvalidNoDate, reason: "no date components")
    }

    override func firstFireDate(scheduledAt now: Date) -> Date? { match(after: now) }

    override func nextFireDate(after previous: Date) -> Date? { repeats ? match(after: previous) : nil }

    private func match(after date: Date) -> Date? {
        guard validationFailure == nil else { return nil }
        var calendar = dateComponents.calendar ?? Calendar(identifier: .gregorian)
        calendar.timeZone = dateComponents.timeZone ?? calendar.timeZone
        var pattern = dateComponents
        pattern.calendar = nil
        pattern.timeZone = nil
        return calendar.nextDate(after: date, matching: pattern, matchingPolicy: .nextTime)
    }

    /// Equal when the components and `repeats` are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNCalendarNotificationTrigger else { return false }
        return other.dateComponents == dateComponents && other.repeats == repeats
    }
}
