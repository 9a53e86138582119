import Foundation

/// A Live Activity of the running app, as in ActivityKit: start one with ``request(attributes:content:pushType:)``,
/// then ``update(_:alertConfiguration:)`` and ``end(_:dismissalPolicy:)`` it, or let pushes do so.
///
/// Every call reads the center of the running app (``ActivityCenter/current``).
public final class Activity<Attributes: ActivityAttributes>: Identifiable, Sendable {
    /// The type of the dynamic content.
    public typealias ContentState = Attributes.ContentState

    /// The activity's id.
    public let id: String
    /// Its static data as JSON: `Attributes` need not be `Sendable` (Apple's are not), `Data` is.
    let attributesJSON: Data
    let center: ActivityCenter

    init(id: String, attributesJSON: Data, center: ActivityCenter) {
        self.id = id
        self.attributesJSON = attributesJSON
        self.center = center
    }

    /// Its static data.
    public var attributes: Attributes {
        do {
            return try JSONDecoder().decode(Attributes.self, from: attributesJSON)
        } catch {
            // The JSON was encoded from, or checked against, this type before the activity was made.
            preconditionFailure("\(Attributes.self) does not decode what it encoded: \(error)")
        }
    }

    static var typeName: String { ActivityCenter.typeName(of: Attributes.self) }

    /// Starts an activity; with `pushType` `.token` it gets a push token, with `.channel(id)` it subscribes to a
    /// broadcast channel, with `nil` only the app updates it.
    public static func request(
        attributes: Attributes,
        content: ActivityContent<Activity<Attributes>.ContentState>,
        pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        try start(attributes: attributes, content: content, pushType: pushType, scheduled: nil)
    }

    /// Starts an activity in a style (iOS 18). Herald shows every style alike; the style is the app's to read back.
    public static func request(
        attributes: Attributes,
        content: ActivityContent<Activity<Attributes>.ContentState>,
        pushType: PushType? = nil,
        style: ActivityStyle
    ) throws -> Activity<Attributes> {
        try request(attributes: attributes, content: content, pushType: pushType)
    }

    /// Schedules an activity to start at `startDate` (iOS 26): until then it is ``ActivityState/pending`` and not on
    /// screen; at that date it becomes active and shows `alertConfiguration`. A date not in the future starts it now.
    public static func request(
        attributes: Attributes,
        content: ActivityContent<Activity<Attributes>.ContentState>,
        pushType: PushType? = nil,
        style: ActivityStyle,
        alertConfiguration: AlertConfiguration,
        startDate: Date
    ) throws -> Activity<Attributes> {
        try start(attributes: attributes, content: content, pushType: pushType, scheduled: (startDate, alertConfiguration))
    }

    /// The requests' one way in: registers the type, then starts the activity now, or at `scheduled`'s date.
    private static func start(
        attributes: Attributes,
        content: ActivityContent<Activity<Attributes>.ContentState>,
        pushType: PushType?,
        scheduled: (startDate: Date, alert: AlertConfiguration)?
    ) throws -> Activity<Attributes> {
        let center = ActivityCenter.current
        center.register(Attributes.self)
        let attributesJSON = try encoder.encode(attributes)
        let id = try center.start(
            typeName: typeName,
            attributesJSON: attributesJSON,
            contentStateJSON: try encoder.encode(content.state),
            staleDate: content.staleDate,
            relevanceScore: content.relevanceScore,
            pushType: pushType,
            scheduled: scheduled
        )
        return Activity(id: id, attributesJSON: attributesJSON, center: center)
    }

    /// Starts an activity with its state and no stale date (iOS 16.1's form, deprecated in 16.2 and still used).
    @available(iOS, introduced: 16.1, deprecated: 16.2, renamed: "request(attributes:content:pushType:)")
    public static func request(
        attributes: Attributes,
        contentState: Activity<Attributes>.ContentState,
        pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        try request(attributes: attributes, content: ActivityContent(state: contentState, staleDate: nil), pushType: pushType)
    }

    /// The app's activities of this type still on screen, oldest first.
    public static var activities: [Activity<Attributes>] {
        let center = ActivityCenter.current
        return center.visibleIDs(typeName: typeName).compactMap { activity(id: $0, center: center) }
    }

    /// Activities of this type as they start, by the app or by a push-to-start push.
    public static var activityUpdates: ActivityUpdates {
        let center = ActivityCenter.current
        let name = typeName
        return ActivityUpdates(
            stream: center.stream { event, records in
                guard case .started(let id, let type, _) = event, type == name, let record = records[id] else { return nil }
                guard (try? JSONDecoder().decode(Attributes.self, from: record.attributesJSON)) != nil else { return nil }
                return Activity(id: id, attributesJSON: record.attributesJSON, center: center)
            }
        )
    }

    /// The type's push-to-start token (the app's first use of the type registers it).
    public static var pushToStartToken: Data? {
        ActivityCenter.current.register(Attributes.self)
    }

    /// The push-to-start token, now and whenever it changes.
    public static var pushToStartTokenUpdates: PushTokenUpdates {
        let center = ActivityCenter.current
        let token = center.register(Attributes.self)
        let name = typeName
        return PushTokenUpdates(
            stream: center.stream(initial: token) { event, _ in
                guard case .pushToStartTokenChanged(let type, let token) = event, type == name else { return nil }
                return token
            }
        )
    }

    /// Its state now (time applied: a stale date passed makes it stale).
    public var activityState: ActivityState {
        center.evaluate()
        return center.record(id)?.state ?? .dismissed
    }

    /// Its content now (time applied).
    public var content: ActivityContent<Activity<Attributes>.ContentState> {
        center.evaluate()
        // The center keeps every record, and a state reaches it only encoded from, or checked against, this type.
        guard let record = center.record(id) else { preconditionFailure("no record for activity \(id)") }
        do {
            return try Self.content(of: record)
        } catch {
            preconditionFailure("\(Attributes.ContentState.self) does not decode its own state: \(error)")
        }
    }

    /// Its push token, when it was requested with `.token` (or started by a push with `input-push-token`).
    public var pushToken: Data? { center.record(id)?.pushToken }

    /// The push token, now and whenever it changes.
    public var pushTokenUpdates: PushTokenUpdates {
        let id = self.id
        return PushTokenUpdates(
            stream: center.stream(initial: pushToken) { event, _ in
                guard case .pushTokenChanged(let changed, let token) = event, changed == id else { return nil }
                return token
            }
        )
    }

    /// Its state whenever it changes.
    public var activityStateUpdates: ActivityStateUpdates {
        let id = self.id
        return ActivityStateUpdates(
            stream: center.stream { event, _ in
                guard case .stateChanged(let changed, let state) = event, changed == id else { return nil }
                return state
            }
        )
    }

    /// Its content whenever an update (the app's or a push's) changes it.
    public var contentUpdates: ContentUpdates {
        let id = self.id
        return ContentUpdates(
            stream: center.stream { event, records in
                guard case .updated(let changed, _, _) = event, changed == id, let record = records[id] else { return nil }
                return record
            }
        )
    }

    /// Changes its content; ignored once it has ended.
    public func update(_ content: ActivityContent<Activity<Attributes>.ContentState>, alertConfiguration: AlertConfiguration? = nil) async {
        guard let json = try? Self.encoder.encode(content.state) else { return }
        center.update(id: id, contentStateJSON: json, staleDate: content.staleDate, relevanceScore: content.relevanceScore, alert: alertConfiguration)
    }

    /// Changes its content as of `timestamp` (iOS 17.2): ignored when older than its current content, or once it has
    /// ended.
    public func update(
        _ content: ActivityContent<Activity<Attributes>.ContentState>,
        alertConfiguration: AlertConfiguration? = nil,
        timestamp: Date
    ) async {
        guard let json = try? Self.encoder.encode(content.state) else { return }
        center.update(
            id: id,
            contentStateJSON: json,
            staleDate: content.staleDate,
            relevanceScore: content.relevanceScore,
            alert: alertConfiguration,
            timestamp: timestamp
        )
    }

    /// Ends it, with final content if given; it leaves the screen as the policy says.
    public func end(_ content: ActivityContent<Activity<Attributes>.ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy = .default) async {
        let json = content.flatMap { try? Self.encoder.encode($0.state) }
        center.end(
            id: id,
            contentStateJSON: json,
            staleDate: content?.staleDate,
            relevanceScore: content?.relevanceScore,
            dismissalPolicy: dismissalPolicy
        )
    }

    /// Ends it as of `timestamp` (iOS 17.2); final content older than its current content is ignored, the end is not.
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default,
        timestamp: Date
    ) async {
        let current = center.record(id)?.contentTimestamp ?? .distantPast
        await end(timestamp < current ? nil : content, dismissalPolicy: dismissalPolicy)
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    static func content(of record: ActivityRecord) throws -> ActivityContent<Attributes.ContentState> {
        ActivityContent(
            state: try JSONDecoder().decode(Attributes.ContentState.self, from: record.contentStateJSON),
            staleDate: record.staleDate,
            relevanceScore: record.relevanceScore
        )
    }

    static func activity(id: String, center: ActivityCenter) -> Activity<Attributes>? {
        guard let record = center.record(id), (try? JSONDecoder().decode(Attributes.self, from: record.attributesJSON)) != nil else {
            return nil
        }
        return Activity(id: id, attributesJSON: record.attributesJSON, center: center)
    }
}
