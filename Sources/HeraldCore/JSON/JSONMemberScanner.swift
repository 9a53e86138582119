/// Finds the top-level members of a JSON object document in its bytes, without building values: where each name
/// and each value starts and ends, so a caller can take or cut a member byte for byte.
///
/// Only for text ``JSONParser`` accepted: it steps over values by their structure and does not validate them. On
/// other input it stops at the first member it cannot read and never reads outside `bytes`.
public struct JSONMemberScanner: Sequence, IteratorProtocol {
    /// One top-level member.
    public struct Member: Hashable, Sendable {
        /// The name's bytes, quotes included.
        public var name: Range<Int>
        /// The value's bytes.
        public var value: Range<Int>
    }

    private let bytes: [UInt8]
    private var index = 0
    private var finished = false

    /// Scans the members of the object document `bytes` (whitespace around it allowed).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        index = Self.skippingWhitespace(bytes, from: 0)
        if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
            index += 1
        } else {
            finished = true
        }
    }

    /// The next member in document order; `nil` after the last.
    public mutating func next() -> Member? {
        guard !finished else { return nil }
        index = Self.skippingWhitespace(bytes, from: index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return finish() }
        let nameStart = index
        guard let nameEnd = Self.endOfString(bytes, from: index) else { return finish() }
        index = Self.skippingWhitespace(bytes, from: nameEnd)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return finish() }
        let valueStart = Self.skippingWhitespace(bytes, from: index + 1)
        guard let valueEnd = Self.endOfValue(bytes, from: valueStart) else { return finish() }
        index = Self.skippingWhitespace(bytes, from: valueEnd)
        if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
            index += 1
        } else {
            finished = true
        }
        return Member(name: nameStart..<nameEnd, value: valueStart..<valueEnd)
    }

    private mutating func finish() -> Member? {
        finished = true
        return nil
    }

    // MARK: Names

    /// Whether the member's name is `name` (compared as decoded text, so an escaped name matches too).
    public static func name(of member: Member, in bytes: [UInt8], equals name: String) -> Bool {
        let quoted = bytes[member.name]
        if !quoted.contains(UInt8(ascii: "\\")) { return quoted.dropFirst().dropLast().elementsEqual(name.utf8) }
        return decodedName(quoted) == name
    }

    /// The member's name, decoded.
    public static func name(of member: Member, in bytes: [UInt8]) -> String {
        let quoted = bytes[member.name]
        if !quoted.contains(UInt8(ascii: "\\")) { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
        return decodedName(quoted) ?? ""
    }

    private static func decodedName(_ quoted: ArraySlice<UInt8>) -> String? {
        (try? JSONParser.parse(quoted))?.stringValue
    }

    /// The bytes of the value of the last top-level member named `name` (the one ``JSONObject`` keeps); `nil` when
    /// there is none.
    public static func lastValue(named name: String, in bytes: [UInt8]) -> Range<Int>? {
        var found: Range<Int>?
        for member in JSONMemberScanner(bytes) where Self.name(of: member, in: bytes, equals: name) {
            found = member.value
        }
        return found
    }

    // MARK: Stepping over text

    private static func skippingWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    /// The index just past the string whose opening quote is at `start`; `nil` when it does not end.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index just past the value that starts at `start`; `nil` when it does not end inside `bytes`.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = endOfString(bytes, from: index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            // A number or a literal: up to the next delimiter.
            var index = start
            scalar: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: break scalar
                default: index += 1
                }
            }
            // A valid document has a delimiter after it; at the end of `bytes` the number may be cut short.
            return index == start || index == bytes.count ? nil : index
        }
    }
}
