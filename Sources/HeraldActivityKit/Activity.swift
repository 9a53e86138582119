import Foundation

/// A Live Activity of the running app, as in ActivityKit: start one with ``request(attributes:content:pushType:)``,
/// then ``update(_:alertConfiguration:)`` and ``end(_:dismissalPolicy:)`` it, or let pushes do so.
///
/// Every call reads the center of the running app (``ActivityCenter/current``).
public final class Activity<Attributes: ActivityAttributes>: Identifiable, Sendable {
    /// The activity's id.
    public let id: String
    /// Its static data.
    public let attributes: Attributes
    let center: ActivityCenter

    init(id: String, attributes: Attributes, center: ActivityCenter) {
        self.id = id
        self.attributes = attributes
        self.center = center
    }

    static var typeName: String { ActivityCenter.typeName(of: Attributes.self) }

    /// Starts an activity; with `pushType` `.token` it gets a push token, with `.channel(id)` it subscribes to a
    /// broadcast channel, with `nil` only the app updates it.
    public static func request(
        attributes: Attributes,
        content: ActivityContent<Attributes.ContentState>,
        pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        let center = ActivityCenter.current
        center.register(Attributes.self)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let id = try center.start(
            typeName: typeName,
            attributesJSON: try encoder.encode(attributes),
            contentStateJSON: try encoder.encode(content.state),
            staleDate: content.staleDate,
            relevanceScore: content.relevanceScore,
            pushType: pushType
        )
        return Activity(id: id, attributes: attributes, center: center)
    }

    /// The app's activities of this type still on screen, oldest first.
    public static var activities: [Activity<Attributes>] {
        let center = ActivityCenter.current
        return center.visibleIDs(typeName: typeName).compactMap { activity(id: $0, center: center) }
    }

    /// Activities of this type as they start, by the app or by a push-to-start push.
    public static var activityUpdates: AsyncStream<Activity<Attributes>> {
        let center = ActivityCenter.current
        let name = typeName
        return center.stream { event, records in
            guard case .started(let id, let type, _) = event, type == name, let record = records[id] else { return nil }
            guard let attributes = try? JSONDecoder().decode(Attributes.self, from: record.attributesJSON) else { return nil }
            return Activity(id: id, attributes: attributes, center: center)
        }
    }

    /// The type's push-to-start token (the app's first use of the type registers it).
    public static var pushToStartToken: Data? {
        ActivityCenter.current.register(Attributes.self)
    }

    /// The push-to-start token, now and whenever it changes.
    public static var pushToStartTokenUpdates: AsyncStream<Data> {
        let center = ActivityCenter.current
        let token = center.register(Attributes.self)
        let name = typeName
        return center.stream(initial: token) { event, _ in
            guard case .pushToStartTokenChanged(let type, let token) = event, type == name else { return nil }
            return token
        }
    }

    /// Its state now (time applied: a stale date passed makes it stale).
    public var activityState: ActivityState {
        center.evaluate()
        return center.record(id)?.state ?? .dismissed
    }

    /// Its content now; `nil` only if its state no longer decodes.
    public var content: ActivityContent<Attributes.ContentState> {
        get throws {
            center.evaluate()
            guard let record = center.record(id) else {
                throw DecodingError.valueNotFound(Attributes.self, .init(codingPath: [], debugDescription: id))
            }
            return try Self.content(of: record)
        }
    }

    /// Its push token, when it was requested with `.token` (or started by a push with `input-push-token`).
    public var pushToken: Data? { center.record(id)?.pushToken }

    /// The push token, now and whenever it changes.
    public var pushTokenUpdates: AsyncStream<Data> {
        let id = self.id
        return center.stream(initial: pushToken) { event, _ in
            guard case .pushTokenChanged(let changed, let token) = event, changed == id else { return nil }
            return token
        }
    }

    /// Its state whenever it changes.
    public var activityStateUpdates: AsyncStream<ActivityState> {
        let id = self.id
        return center.stream { event, _ in
            guard case .stateChanged(let changed, let state) = event, changed == id else { return nil }
            return state
        }
    }

    /// Its content whenever an update (the app's or a push's) changes it.
    public var contentUpdates: AsyncStream<ActivityContent<Attributes.ContentState>> {
        let id = self.id
        return center.stream { event, records in
            guard case .updated(let changed, _, _) = event, changed == id, let record = records[id] else { return nil }
            return try? Self.content(of: record)
        }
    }

    /// Changes its content; ignored once it has ended.
    public func update(_ content: ActivityContent<Attributes.ContentState>, alertConfiguration: AlertConfiguration? = nil) async {
        guard let json = try? Self.encoder.encode(content.state) else { return }
        center.update(id: id, contentStateJSON: json, staleDate: content.staleDate, relevanceScore: content.relevanceScore, alert: alertConfiguration)
    }

    /// Ends it, with final content if given; it leaves the screen as the policy says.
    public func end(_ content: ActivityContent<Attributes.ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy = .default) async {
        let json = content.flatMap { try? Self.encoder.encode($0.state) }
        center.end(
            id: id,
            contentStateJSON: json,
            staleDate: content?.staleDate,
            relevanceScore: content?.relevanceScore,
            dismissalPolicy: dismissalPolicy
        )
    }

    private static var encoder: JSONEncoder {
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
        guard let record = center.record(id), let attributes = try? JSONDecoder().decode(Attributes.self, from: record.attributesJSON) else {
            return nil
        }
        return Activity(id: id, attributes: attributes, center: center)
    }
}
