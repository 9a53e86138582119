/// Writes JSON text into bytes, with members in the order written and no whitespace: Herald's one JSON writer, for
/// device-link frames, API answers and the CLI's `--json` lines.
///
/// Why its own: a notification frame embeds the provider's payload verbatim (``rawValue(_:)``), which
/// `JSONEncoder` cannot do, frames are written on the delivery hot path, and integers are written exactly (Foundation's
/// `JSONSerialization` goes through `NSNumber`). Strings are escaped by ``JSONString``.
public struct JSONTextWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8] = []
    // One entry per open object or array: whether a value was already written in it.
    private var hasValue: [Bool] = []
    private var afterKey = false

    /// An empty writer.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        hasValue.append(false)
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        hasValue.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Opens an array.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        hasValue.append(false)
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        hasValue.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a member name; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        writeString(value)
    }

    /// Writes an integer value.
    public mutating func integer(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes bytes that already are one JSON value, unchanged.
    public mutating func rawValue(_ json: some Collection<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
    }

    /// Writes a member with a string value.
    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes a member with a string value, or `null`.
    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    /// Writes a member with an integer value.
    public mutating func member(_ name: String, _ value: Int64) {
        key(name)
        integer(value)
    }

    /// Writes a member with an integer value, or `null`.
    public mutating func member(_ name: String, _ value: Int64?) {
        key(name)
        if let value { integer(value) } else { null() }
    }

    /// Writes a member with an integer value.
    public mutating func member(_ name: String, _ value: Int) {
        key(name)
        integer(value)
    }

    /// Writes a member with a boolean value.
    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes a comma when a value precedes this one in the same container.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard let last = hasValue.indices.last else { return }
        if hasValue[last] { bytes.append(UInt8(ascii: ",")) }
        hasValue[last] = true
    }

    private mutating func writeString(_ value: String) {
        JSONString.append(value, to: &bytes)
    }
}
