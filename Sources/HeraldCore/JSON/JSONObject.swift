/// The members of a JSON object, in document order, duplicates included.
///
/// A lookup by key sees the last member of that name. Two objects are equal when they have the same members in the
/// same order; an object made from a dictionary has its members in key order, so equal dictionaries make equal
/// objects.
public struct JSONObject: Sendable, Hashable, Sequence {
    private var keys: [String]
    private var values: [JSONValue]

    /// Creates an object from members in order.
    public init(_ members: [(String, JSONValue)] = []) {
        keys = members.map(\.0)
        values = members.map(\.1)
    }

    /// Creates an object from a dictionary's members, in key order.
    public init(_ dictionary: [String: JSONValue]) {
        let sorted = dictionary.sorted { $0.key < $1.key }
        keys = sorted.map(\.key)
        values = sorted.map(\.value)
    }

    /// The members in document order (duplicates included).
    public var members: [(key: String, value: JSONValue)] {
        zip(keys, values).map { (key: $0, value: $1) }
    }

    /// The member names in document order.
    public var memberNames: [String] { keys }

    /// How many members there are, duplicates included.
    public var count: Int { keys.count }

    /// Whether there are no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The members as a dictionary; a duplicate key keeps its last value.
    public var dictionary: [String: JSONValue] {
        Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
    }

    /// The value of the last member named `key`.
    public subscript(key: String) -> JSONValue? {
        guard let index = keys.lastIndex(of: key) else { return nil }
        return values[index]
    }

    /// Whether a member named `key` exists.
    public func contains(_ key: String) -> Bool { keys.contains(key) }

    /// Appends a member.
    public mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    /// The members in document order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
