/// Reads a JSON object — a device-link frame, an API request body — by member name, and takes an object-valued
/// member as the exact bytes that were sent.
///
/// The text is parsed once with the strict ``JSONParser`` (depth-limited, so hostile input cannot exhaust the stack);
/// ``rawObject(_:context:)`` then finds a member's bytes in the already-validated text with ``JSONMemberScanner``,
/// which is how a notification's payload reaches the device byte for byte. A member of the wrong type throws the
/// caller's own error (`context`) with a message naming the member.
public struct JSONObjectReader: Sendable {
    /// Why the text is not one JSON object.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The parser's error when the text is not JSON at all; `nil` when it is JSON but not an object.
        public let parseFailure: JSONParser.Failure?

        public var description: String {
            parseFailure.map { "not valid JSON: \($0)" } ?? "not a JSON object"
        }
    }

    /// The text read.
    public let bytes: [UInt8]
    /// The object's members.
    public let object: JSONObject

    /// Parses `text`; fails unless it is one JSON object.
    public init(_ text: some Collection<UInt8>) throws(Failure) {
        bytes = Array(text)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw Failure(parseFailure: error)
        }
        guard case .object(let object) = value else { throw Failure(parseFailure: nil) }
        self.object = object
    }

    /// The string value of a member; `nil` when absent or `null`.
    public func optionalString<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let string)?: return string
        default: throw context.with(message: "\"\(name)\" must be a string")
        }
    }

    /// The string value of a member that must be present.
    public func string<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> String {
        guard let value = try optionalString(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }

    /// The magnitude every integer read stays below.
    public static let integerLimit = 9_000_000_000_000_000

    /// The integer value of a member; `nil` when absent or `null`.
    ///
    /// Below 9 × 10^15 in magnitude (``integerLimit``): exact in every JSON reader, JavaScript's (the console) included.
    public func optionalInteger<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        case let value?:
            // `magnitude`, not `abs`: the parser reads -9223372036854775808 as `Int.min`, whose `abs` traps.
            guard let integer = value.integerValue, integer.magnitude < Self.integerLimit else {
                throw context.with(message: "\"\(name)\" must be an integer (below 9 × 10^15 in magnitude)")
            }
            return Int64(integer)
        }
    }

    /// The integer value of a member that must be present.
    public func integer<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> Int64 {
        guard let value = try optionalInteger(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }

    /// The boolean value of a member; `nil` when absent or `null`.
    public func optionalBool<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw context.with(message: "\"\(name)\" must be true or false")
        }
    }

    /// The boolean value of a member that must be present.
    public func bool<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> Bool {
        guard case .bool(let value)? = object[name] else {
            throw context.with(message: "\"\(name)\" must be true or false")
        }
        return value
    }

    /// The exact bytes of an object-valued member; `nil` when absent or `null`.
    public func optionalRawObject<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> [UInt8]? {
        switch object[name] {
        case nil, .null?: return nil
        case .object?:
            guard let span = JSONMemberScanner.lastValue(named: name, in: bytes) else {
                // Not expected: the scanner steps over text the parser accepted.
                throw context.with(message: "\"\(name)\" could not be located")
            }
            return Array(bytes[span])
        default: throw context.with(message: "\"\(name)\" must be a JSON object")
        }
    }

    /// The exact bytes of an object-valued member that must be present.
    public func rawObject<Context: JSONMemberError>(_ name: String, context: Context) throws(Context) -> [UInt8] {
        guard let value = try optionalRawObject(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }
}

/// An error a ``JSONObjectReader`` throws for a missing or mistyped member: the caller's own error (a device-link
/// error, a `400`), carrying the reader's message.
public protocol JSONMemberError: Error {
    /// This error with `message` saying what is wrong with the member.
    func with(message: String) -> Self
}
