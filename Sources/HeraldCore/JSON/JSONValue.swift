/// A parsed JSON value (RFC 8259), small and `Sendable`, for reading payloads without Foundation.
///
/// Objects keep their members in order and allow lookup by key; a duplicate key keeps the last value,
/// as most JSON readers (and so most devices) do.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The members when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The text when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number when this is a number.
    public var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The number as an integer when it is a whole number.
    public var integerValue: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) < 9.0e15 else { return nil }
        return Int(number)
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The value when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }
}

/// The members of a JSON object, in document order.
public struct JSONObject: Sendable, Hashable {
    /// The members in document order (duplicates included).
    public var members: [(key: String, value: JSONValue)] {
        zip(keys, values).map { (key: $0, value: $1) }
    }

    private var keys: [String]
    private var values: [JSONValue]

    /// Creates an object from members in order.
    public init(_ members: [(String, JSONValue)] = []) {
        keys = members.map(\.0)
        values = members.map(\.1)
    }

    /// The value of the last member named `key`.
    public subscript(key: String) -> JSONValue? {
        guard let index = keys.lastIndex(of: key) else { return nil }
        return values[index]
    }

    /// The member names in document order.
    public var memberNames: [String] { keys }

    /// Whether a member named `key` exists.
    public func contains(_ key: String) -> Bool { keys.contains(key) }

    /// Appends a member.
    public mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
