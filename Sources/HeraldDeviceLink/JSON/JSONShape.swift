import HeraldCore

/// The shape a JSON value must have: which members an object needs and of what type, as a `Decodable` type would
/// decode them. Members not listed are allowed (a newer device may add some).
///
/// Used to refuse a `screen` that the console could not read (``deviceSnapshot``) with an error that names the first
/// wrong member, instead of keeping it and failing silently in the browser.
indirect enum JSONShape: Sendable {
    /// A string.
    case string
    /// A string that is one of these.
    case oneOf([String])
    /// A string that is a UUID (an `apns-id`).
    case uuid
    /// Any number.
    case number
    /// An integer.
    case integer
    /// `true` or `false`.
    case bool
    /// An array whose elements all have this shape.
    case array(JSONShape)
    /// An object with any member names, whose values all have this shape (a Swift dictionary with string keys).
    case map(JSONShape)
    /// An object with these members; an optional one may be absent or `null`.
    case object([Member])

    /// One member of an ``object(_:)``.
    struct Member: Sendable {
        var name: String
        var shape: JSONShape
        var isOptional: Bool
    }

    /// Why `value` does not have this shape, naming the first wrong member by its path (e.g. `apps[0].center.threads`);
    /// `nil` when it has.
    func problem(with value: JSONValue, at path: String) -> String? {
        switch (self, value) {
        case (.string, .string), (.number, .int), (.number, .double), (.bool, .bool):
            return nil
        case (.integer, _) where value.integerValue != nil:
            return nil
        case (.oneOf(let allowed), .string(let text)):
            return allowed.contains(text) ? nil : "\(path) must be one of \(allowed.joined(separator: ", "))"
        case (.uuid, .string(let text)):
            return NotificationID(text) == nil ? "\(path) must be a UUID" : nil
        case (.array(let element), .array(let elements)):
            for (index, item) in elements.enumerated() {
                if let problem = element.problem(with: item, at: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.map(let element), .object(let object)):
            for (name, item) in object.members {
                if let problem = element.problem(with: item, at: "\(path).\(name)") { return problem }
            }
            return nil
        case (.object(let members), .object(let object)):
            for member in members {
                switch object[member.name] {
                case nil, .null?:
                    if !member.isOptional { return "\(path).\(member.name) is required" }
                case let item?:
                    if let problem = member.shape.problem(with: item, at: "\(path).\(member.name)") { return problem }
                }
            }
            return nil
        default:
            return "\(path) must be \(description)"
        }
    }

    /// What a value of this shape is, for an error message.
    private var description: String {
        switch self {
        case .string, .oneOf, .uuid: "a string"
        case .number: "a number"
        case .integer: "an integer"
        case .bool: "true or false"
        case .array: "an array"
        case .map, .object: "an object"
        }
    }
}

extension JSONShape.Member {
    /// A member that must be present.
    static func required(_ name: String, _ shape: JSONShape) -> Self {
        Self(name: name, shape: shape, isOptional: false)
    }

    /// A member that may be absent or `null`.
    static func optional(_ name: String, _ shape: JSONShape) -> Self {
        Self(name: name, shape: shape, isOptional: true)
    }
}
