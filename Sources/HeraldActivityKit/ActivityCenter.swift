import Foundation
import HeraldUserNotifications
import Synchronization

/// One app's Live Activities on one device: what ActivityKit keeps behind `Activity`, with its rules on an injected
/// clock (docs/live-activities.md).
///
/// The app's code uses Apple's API (``Activity``), which reads the center bound to the running task (``current``), as
/// `UNUserNotificationCenter.current()` does; a host binds it with ``withCurrent(_:)`` and feeds it pushes
/// (``receive(payload:target:priority:)``) and time (``evaluate()``), and reports what it returns (``ActivityEvent``).
public final class ActivityCenter: Sendable {
    /// The app's Info.plist keys, the person's settings and the system's limits.
    public struct Configuration: Sendable {
        /// `NSSupportsLiveActivities` and the person's Settings switch.
        public var activitiesEnabled = true
        /// `NSSupportsLiveActivitiesFrequentUpdates` (and the person allows it): the larger priority-10 budget.
        public var supportsFrequentUpdates = false
        /// Running activities (active or stale) the app may have at once; Apple does not publish its number.
        /// Herald's choice: 5.
        public var maximumActivities = 5
        /// How long an activity may run before the system ends it (Apple: eight hours).
        public var maximumDuration: TimeInterval = 8 * 3600
        /// How long an ended activity stays on the lock screen by default, and at most (Apple: up to four hours).
        public var endedVisibility: TimeInterval = 4 * 3600
        /// Priority-10 pushes per activity per window before they are throttled (applied without their alert).
        /// Apple does not publish its budget. Herald's choice: 10 per hour.
        public var highPriorityBudget = BackgroundPushBudget(limit: 10, window: 3600)
        /// The same with ``supportsFrequentUpdates``. Herald's choice: 100 per hour.
        public var frequentHighPriorityBudget = BackgroundPushBudget(limit: 100, window: 3600)
        /// The most bytes of attributes and content state together (Apple: 4 KB).
        public var maximumDataSize = 4096
        /// Whether activities may subscribe to broadcast channels (iOS 18).
        public var supportsChannels = true

        /// The defaults described above.
        public init() {}
    }

    /// How a type of activity's JSON is checked: the app's types decode it.
    struct TypeRegistration: Sendable {
        let decodesAttributes: @Sendable (Data) -> Bool
        let decodesContentState: @Sendable (Data) -> Bool
    }

    struct State {
        var records: [String: ActivityRecord] = [:]
        /// Ids in start order.
        var order: [String] = []
        var types: [String: TypeRegistration] = [:]
        var pushToStartTokens: [String: Data] = [:]
        var streams = ActivityStreams()
        var events: [ActivityEvent] = []
    }

    @TaskLocal static var bound: ActivityCenter?
    private static let processCenter = ActivityCenter()

    /// The center of the running app: the one bound with ``withCurrent(_:)``, else one for the process.
    public static var current: ActivityCenter { bound ?? processCenter }

    /// The clock every rule reads.
    public let clock: any NotificationClock
    /// The configuration.
    public let configuration: Configuration
    let state = Mutex(State())

    /// Creates a center (ActivityKit has none to create; Herald's exists for hosts and tests).
    public init(clock: any NotificationClock = SystemNotificationClock(), configuration: Configuration = Configuration()) {
        self.clock = clock
        self.configuration = configuration
    }

    /// Runs `body` with `self` as ``current``.
    public func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$bound.withValue(self) { try body() }
    }

    /// Runs an async `body` with `self` as ``current``.
    public func withCurrentAsync<T>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$bound.withValue(self) { try await body() }
    }

    /// Declares a type of activity (the app's code declares it by using it; a host declares the manifest's types):
    /// pushes that name it are decoded with it, and it gets a push-to-start token. Returns the token.
    @discardableResult
    public func register<Attributes: ActivityAttributes>(_ type: Attributes.Type) -> Data {
        register(
            typeName: Self.typeName(of: type),
            decodesAttributes: { (try? JSONDecoder().decode(Attributes.self, from: $0)) != nil },
            decodesContentState: { (try? JSONDecoder().decode(Attributes.ContentState.self, from: $0)) != nil }
        )
    }

    /// Declares a type of activity by name, with how its JSON is checked; returns its push-to-start token.
    @discardableResult
    public func register(
        typeName: String,
        decodesAttributes: @escaping @Sendable (Data) -> Bool,
        decodesContentState: @escaping @Sendable (Data) -> Bool
    ) -> Data {
        let (token, isNew) = state.withLock { state -> (Data, Bool) in
            state.types[typeName] = TypeRegistration(decodesAttributes: decodesAttributes, decodesContentState: decodesContentState)
            if let token = state.pushToStartTokens[typeName] { return (token, false) }
            let token = Self.newToken()
            state.pushToStartTokens[typeName] = token
            return (token, true)
        }
        if isNew { publish([.pushToStartTokenChanged(typeName: typeName, token: token)]) }
        return token
    }

    /// The type name a push's `attributes-type` uses for `type` (its Swift name, as ActivityKit's).
    public static func typeName<Attributes: ActivityAttributes>(of type: Attributes.Type) -> String {
        String(describing: type)
    }

    /// The push-to-start token of a type, `nil` before it is registered.
    public func pushToStartToken(typeName: String) -> Data? {
        state.withLock { $0.pushToStartTokens[typeName] }
    }

    /// Gives a type a new push-to-start token (the system may; a provider must then use the new one).
    @discardableResult
    public func rotatePushToStartToken(typeName: String) -> Data? {
        let token = state.withLock { state -> Data? in
            guard state.pushToStartTokens[typeName] != nil else { return nil }
            let token = Self.newToken()
            state.pushToStartTokens[typeName] = token
            return token
        }
        if let token { publish([.pushToStartTokenChanged(typeName: typeName, token: token)]) }
        return token
    }

    /// Gives an activity a new push token (the system may; a provider must then use the new one).
    @discardableResult
    public func rotatePushToken(activityID: String) -> Data? {
        let token = state.withLock { state -> Data? in
            guard let record = state.records[activityID], record.pushToken != nil, record.isLive else { return nil }
            let token = Self.newToken()
            state.records[activityID]?.pushToken = token
            return token
        }
        if let token { publish([.pushTokenChanged(id: activityID, token: token)]) }
        return token
    }

    /// Applies what time alone changes (stale dates, the eight-hour limit, dismissal) and returns what happened.
    @discardableResult
    public func evaluate() -> [ActivityEvent] {
        let now = clock.now
        let events = state.withLock { state -> [ActivityEvent] in
            var events: [ActivityEvent] = []
            for id in state.order {
                events +=
                    state.records[id]?.evaluate(
                        now: now,
                        maximumDuration: configuration.maximumDuration,
                        endedVisibility: configuration.endedVisibility
                    ) ?? []
            }
            return events
        }
        publish(events)
        return events
    }

    /// Every event so far, oldest first.
    public var events: [ActivityEvent] { state.withLock { $0.events } }

    /// A snapshot of every activity still on screen, in start order, for a console.
    public var snapshots: [ActivitySnapshot] {
        state.withLock { state in
            state.order.compactMap { state.records[$0] }.filter(\.isVisible).map(ActivitySnapshot.init)
        }
    }

    /// The broadcast channels the live activities (active or stale) follow, each once, in start order.
    public var subscribedChannels: [String] {
        state.withLock { state in
            var seen = Set<String>()
            return state.order.compactMap { state.records[$0] }.filter(\.isLive).compactMap(\.channelID).filter { seen.insert($0).inserted }
        }
    }

    /// Records events and hands them to the streams that watch them (outside the lock).
    func publish(_ events: [ActivityEvent]) {
        guard !events.isEmpty else { return }
        let deliveries = state.withLock { state -> [ActivityStreams.Delivery] in
            state.events += events
            return events.flatMap { state.streams.deliveries(for: $0, records: state.records) }
        }
        for delivery in deliveries { delivery() }
    }

    static func newToken() -> Data {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    }
}

/// An activity as a console shows it.
public struct ActivitySnapshot: Hashable, Sendable, Codable {
    /// The activity id.
    public var id: String
    /// The attributes' type name.
    public var typeName: String
    /// The attributes as JSON text.
    public var attributes: String
    /// The content state as JSON text.
    public var contentState: String
    /// The state.
    public var state: ActivityState
    /// The stale date.
    public var staleDate: Date?
    /// The relevance score.
    public var relevanceScore: Double
    /// The push token (hex), when it has one.
    public var pushToken: String?
    /// The broadcast channel it subscribes to.
    public var channelID: String?
    /// When an ended activity leaves the screen.
    public var dismissAt: Date?

    init(_ record: ActivityRecord) {
        id = record.id
        typeName = record.typeName
        attributes = String(decoding: record.attributesJSON, as: UTF8.self)
        contentState = String(decoding: record.contentStateJSON, as: UTF8.self)
        state = record.state
        staleDate = record.staleDate
        relevanceScore = record.relevanceScore
        pushToken = record.pushToken.map { $0.map { String(format: "%02x", $0) }.joined() }
        channelID = record.channelID
        dismissAt = record.dismissAt
    }
}
