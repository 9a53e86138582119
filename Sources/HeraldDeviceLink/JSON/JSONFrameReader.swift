import HeraldCore

/// Reads one frame: a JSON object whose members are read by name, and whose object-valued members can be
/// taken as the exact bytes that were sent.
///
/// The frame is parsed once with HeraldCore's strict ``JSONParser`` (depth-limited, so hostile input cannot
/// exhaust the stack); ``rawObject(_:)`` then finds a member's bytes in the already-validated text with
/// ``JSONMemberScanner``, which is how a notification's payload reaches the device byte for byte.
package struct JSONFrameReader {
    /// The frame's text.
    package let bytes: [UInt8]
    /// The frame's members.
    package let object: JSONObject

    /// Parses a frame; fails with `malformed-frame` unless it is one JSON object.
    package init(_ frame: some Collection<UInt8>) throws(DeviceLinkError) {
        bytes = Array(frame)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DeviceLinkError(code: .malformedFrame, message: "the frame is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw DeviceLinkError(code: .malformedFrame, message: "the frame must be a JSON object")
        }
        self.object = object
    }

    /// The string value of a member; `nil` when absent or `null`.
    package func optionalString(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let string)?: return string
        default: throw context.with(message: "\"\(name)\" must be a string")
        }
    }

    /// The string value of a member that must be present.
    package func string(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> String {
        guard let value = try optionalString(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }

    /// The magnitude every integer of a message stays below.
    static let integerLimit = 9_000_000_000_000_000

    /// The integer value of a member; `nil` when absent or `null`.
    package func optionalInteger(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        case let value?:
            // Below 9 × 10^15 in magnitude: exact in every JSON reader, including JavaScript's (the console).
            // `magnitude`, not `abs`: the parser reads -9223372036854775808 as `Int.min`, whose `abs` traps.
            guard let integer = value.integerValue, integer.magnitude < Self.integerLimit else {
                throw context.with(message: "\"\(name)\" must be an integer (below 9 × 10^15 in magnitude)")
            }
            return Int64(integer)
        }
    }

    /// The integer value of a member that must be present.
    package func integer(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> Int64 {
        guard let value = try optionalInteger(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }

    /// The boolean value of a member; `nil` when absent or `null`.
    package func optionalBool(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw context.with(message: "\"\(name)\" must be true or false")
        }
    }

    /// The boolean value of a member that must be present.
    package func bool(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> Bool {
        guard case .bool(let value)? = object[name] else {
            throw context.with(message: "\"\(name)\" must be true or false")
        }
        return value
    }

    /// The exact bytes of an object-valued member; `nil` when absent or `null`.
    package func optionalRawObject(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> [UInt8]? {
        switch object[name] {
        case nil, .null?: return nil
        case .object?:
            guard let span = JSONMemberScanner.lastValue(named: name, in: bytes) else {
                throw context.with(code: .internal, message: "\"\(name)\" could not be located")
            }
            return Array(bytes[span])
        default: throw context.with(message: "\"\(name)\" must be a JSON object")
        }
    }

    /// The exact bytes of an object-valued member that must be present.
    package func rawObject(_ name: String, context: DeviceLinkError) throws(DeviceLinkError) -> [UInt8] {
        guard let value = try optionalRawObject(name, context: context) else {
            throw context.with(message: "\"\(name)\" is required")
        }
        return value
    }
}
