import HeraldUserNotifications

/// A type of Live Activity an app declares (its `ActivityAttributes`): the name pushes use as `attributes-type`, and
/// the members its attributes and content state must have (docs/device-manifest.md, "activities").
///
/// Minimal on purpose: a push's `attributes` or `content-state` decodes when it is a JSON object with every listed
/// member (any JSON value; extra members are ignored, as `JSONDecoder` ignores them).
public struct ActivityTypeManifest: Codable, Sendable, Hashable {
    /// The type name, e.g. `DeliveryAttributes`.
    public var name: String
    /// The members `attributes` must have.
    public var attributes: [String]
    /// The members `content-state` must have.
    public var contentState: [String]
    /// What the activity's lock-screen view shows, as a console draws it; `nil`: its content state as it is.
    public var lockScreen: ActivityLockScreenTemplate?

    /// Creates a type.
    public init(name: String, attributes: [String] = [], contentState: [String] = [], lockScreen: ActivityLockScreenTemplate? = nil) {
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
        self.lockScreen = lockScreen
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, attributes, contentState, lockScreen
    }

    /// Decodes a type, refusing unknown keys.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeNonEmpty(.name)
        attributes = try container.decode(.attributes, or: [])
        contentState = try container.decode(.contentState, or: [])
        lockScreen = try container.decode(.lockScreen, or: nil)
    }
}

/// An activity type's lock-screen view, like a content extension's templates (docs/device-manifest.md,
/// "activities"): a title and lines whose placeholders are the attributes' and the content state's members,
/// `{attributes.KEY}` and `{state.KEY}` (a dotted path reaches nested members).
public struct ActivityLockScreenTemplate: Codable, Sendable, Hashable {
    /// The title, e.g. `"Order {attributes.orderNumber}"`.
    public var title: ContentTemplate?
    /// The lines under it, e.g. `["{state.status}", "{state.minutes} min"]`.
    public var lines: [ContentTemplate]

    static let prefixes = ["attributes.", "state."]

    /// Creates a template from its texts; throws ``ContentTemplate/Invalid`` for a placeholder it does not know.
    public init(title: String? = nil, lines: [String] = []) throws {
        self.title = try title.map { try ContentTemplate($0, names: [], prefixes: Self.prefixes) }
        self.lines = try lines.map { try ContentTemplate($0, names: [], prefixes: Self.prefixes) }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, lines
    }

    /// Decodes a template, refusing unknown keys and placeholders.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let title: String? = try container.decode(.title, or: nil)
        let lines: [String] = try container.decode(.lines, or: [])
        do {
            try self.init(title: title, lines: lines)
        } catch let error as ContentTemplate.Invalid {
            throw ManifestError(.invalidValue, field: ManifestError.path(decoder.codingPath), reason: error.reason)
        }
    }

    /// The view of an activity whose attributes and content state are these JSON objects.
    public func render(attributes: [String: JSONValue], state: [String: JSONValue]) -> ActivityView {
        func value(_ name: String) -> String? {
            if name.hasPrefix("attributes.") {
                return PayloadPath.value(at: String(name.dropFirst("attributes.".count)), in: attributes).map(PayloadPath.text)
            }
            if name.hasPrefix("state.") {
                return PayloadPath.value(at: String(name.dropFirst("state.".count)), in: state).map(PayloadPath.text)
            }
            return nil
        }
        return ActivityView(title: title?.render(value), lines: lines.map { $0.render(value) })
    }
}

/// An activity's lock-screen view as its type's template draws it.
public struct ActivityView: Codable, Sendable, Hashable {
    /// The title.
    public var title: String?
    /// The lines.
    public var lines: [String]

    /// Creates a view.
    public init(title: String?, lines: [String]) {
        self.title = title
        self.lines = lines
    }
}
