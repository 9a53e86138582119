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

    /// Creates a type.
    public init(name: String, attributes: [String] = [], contentState: [String] = []) {
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, attributes, contentState
    }

    /// Decodes a type, refusing unknown keys.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeNonEmpty(.name)
        attributes = try container.decode(.attributes, or: [])
        contentState = try container.decode(.contentState, or: [])
    }
}
