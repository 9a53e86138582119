/// JSON written in Swift as literals: `["status": 200, "reason": "Unregistered", "ok": true]`; an object literal keeps
/// its members in the order written.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number that is not an integer.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, its members in the order written.
    public init(dictionaryLiteral members: (String, JSONValue)...) { self = .object(JSONObject(members)) }
}

extension JSONValue {
    /// `value` as a string, or `null` when it is `nil`.
    public static func nullable(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// `value` as an integer, or `null` when it is `nil`.
    public static func nullable(_ value: (some BinaryInteger)?) -> JSONValue {
        guard let value else { return .null }
        return integer(value)
    }

    /// `value` as an integer: exact for every `Int64` (a `UInt64` above `Int.max` becomes a ``double(_:)``).
    public static func integer(_ value: some BinaryInteger) -> JSONValue {
        Int(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    }
}
