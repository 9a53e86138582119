/// A JSON value (RFC 8259), small and `Sendable`: what ``JSONParser`` reads from a payload or a frame, and what the
/// device side keeps as `userInfo` and reports.
///
/// Numbers keep how they were written: an integer literal that fits `Int` is ``int(_:)``, any other number (a
/// fraction, an exponent, `-0`, an integer too large for `Int`) is ``double(_:)``. Objects keep their members in
/// order (``JSONObject``); a duplicate key keeps the last value on lookup, as most JSON readers (and so most
/// devices) do.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A number that is not an integer literal that fits `Int`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
    case object(JSONObject)

    /// An object with the members of a dictionary, in key order (a dictionary has no order of its own).
    public static func object(_ members: [String: JSONValue]) -> JSONValue {
        .object(JSONObject(members))
    }

    /// The members when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The members as a dictionary (a duplicate key keeps its last value) when this is an object.
    public var dictionaryValue: [String: JSONValue]? {
        objectValue?.dictionary
    }

    /// The text when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number as a `Double` when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The number when it is a whole number: an ``int(_:)``, or a ``double(_:)`` without a fraction below 9×10¹⁵
    /// (above that a double no longer holds every integer). Strict, for wire formats: `"1"` and `true` are not numbers.
    public var integerValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let number):
            guard number.rounded() == number, abs(number) < 9.0e15 else { return nil }
            return Int(number)
        default: return nil
        }
    }

    /// The value as an `Int` the way a device reads `userInfo` numbers: booleans count as 0 or 1, doubles are
    /// truncated, strings are parsed. Lenient, for payload keys Apple reads leniently (`badge`, `mutable-content`).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value.rounded(.towardZero))
        case .bool(let value): value ? 1 : 0
        case .string(let value): Int(value)
        default: nil
        }
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
