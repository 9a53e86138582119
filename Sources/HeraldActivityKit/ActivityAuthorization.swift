import Foundation

/// Whether the person lets the app show Live Activities, as in ActivityKit.
public struct ActivityAuthorizationInfo: Sendable {
    let center: ActivityCenter

    /// The running app's (``ActivityCenter/current``).
    public init() {
        center = ActivityCenter.current
    }

    /// Whether the app may start activities (the Settings switch).
    public var areActivitiesEnabled: Bool { center.configuration.activitiesEnabled }
    /// Whether the app declared `NSSupportsLiveActivitiesFrequentUpdates` and the person allows it.
    public var frequentPushesEnabled: Bool { center.configuration.supportsFrequentUpdates }

    /// Changes of ``areActivitiesEnabled``. A center's configuration is fixed, so the sequence waits without a value,
    /// as Apple's does while the person leaves Settings alone.
    public var activityEnablementUpdates: ActivityEnablementUpdates {
        ActivityEnablementUpdates(stream: center.stream { _, _ in nil })
    }

    /// Changes of ``frequentPushesEnabled``; see ``activityEnablementUpdates``.
    public var frequentPushEnablementUpdates: FrequentPushEnablementUpdates {
        FrequentPushEnablementUpdates(stream: center.stream { _, _ in nil })
    }

    /// A sequence of ``areActivitiesEnabled`` values.
    public struct ActivityEnablementUpdates: AsyncSequence, Sendable {
        /// Whether activities are enabled.
        public typealias Element = Bool
        let stream: AsyncStream<Bool>

        /// Iterates the values.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Bool>.Iterator
            /// The next value; `nil` when the sequence ends.
            public mutating func next() async -> Bool? { await base.next() }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }

    /// A sequence of ``frequentPushesEnabled`` values.
    public struct FrequentPushEnablementUpdates: AsyncSequence, Sendable {
        /// Whether frequent pushes are enabled.
        public typealias Element = Bool
        let stream: AsyncStream<Bool>

        /// Iterates the values.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Bool>.Iterator
            /// The next value; `nil` when the sequence ends.
            public mutating func next() async -> Bool? { await base.next() }
        }

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }
}

/// Why ``Activity/request(attributes:content:pushType:)`` failed, as in ActivityKit (Apple's is an enum; these are
/// its cases as constants, which `catch` and `switch` match the same way).
public struct ActivityAuthorizationError: LocalizedError, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case denied, targetMaximumExceeded, attributesTooLarge, unsupported, globalMaximumExceeded
        case malformedActivityIdentifier, missingProcessIdentifier, persistenceFailure, reconnectNotPermitted
        case unentitled, unsupportedTarget, visibility
    }

    private let code: Code

    /// The person turned Live Activities off for the app.
    public static let denied = ActivityAuthorizationError(code: .denied)
    /// The app has as many activities as it may (``ActivityCenter/Configuration/maximumActivities``).
    public static let targetMaximumExceeded = ActivityAuthorizationError(code: .targetMaximumExceeded)
    /// The attributes and the content together are over 4 KB.
    public static let attributesTooLarge = ActivityAuthorizationError(code: .attributesTooLarge)
    /// A channel push type on a device or app that cannot subscribe to channels.
    public static let unsupported = ActivityAuthorizationError(code: .unsupported)
    /// The device runs as many activities as it may (Herald counts one app per center, so it uses
    /// ``targetMaximumExceeded``).
    public static let globalMaximumExceeded = ActivityAuthorizationError(code: .globalMaximumExceeded)
    /// The activity identifier is malformed.
    public static let malformedActivityIdentifier = ActivityAuthorizationError(code: .malformedActivityIdentifier)
    /// The process has no identifier (not raised by Herald).
    public static let missingProcessIdentifier = ActivityAuthorizationError(code: .missingProcessIdentifier)
    /// The system could not store the activity (not raised by Herald).
    public static let persistenceFailure = ActivityAuthorizationError(code: .persistenceFailure)
    /// The process may not reconnect to the activity (not raised by Herald).
    public static let reconnectNotPermitted = ActivityAuthorizationError(code: .reconnectNotPermitted)
    /// The app lacks the entitlement (not raised by Herald).
    public static let unentitled = ActivityAuthorizationError(code: .unentitled)
    /// The target does not support activities (not raised by Herald).
    public static let unsupportedTarget = ActivityAuthorizationError(code: .unsupportedTarget)
    /// The app must be in the foreground to start an activity (not raised by Herald).
    public static let visibility = ActivityAuthorizationError(code: .visibility)

    public var description: String { code.rawValue }

    /// A short text for the person (LocalizedError).
    public var errorDescription: String? { "Live Activity request failed: \(code.rawValue)" }
    /// Why it failed (LocalizedError).
    public var failureReason: String? { code.rawValue }
    /// What to do (LocalizedError).
    public var recoverySuggestion: String? { nil }
    /// A help anchor (LocalizedError).
    public var helpAnchor: String? { nil }
}
