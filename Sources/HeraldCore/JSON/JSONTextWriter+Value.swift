extension JSONTextWriter {
    /// Writes a number that is not an integer: Swift's shortest form that reads back the same, without a trailing
    /// `.0` (`1`, `0.5`, `1e+20`), as Foundation's `JSONSerialization` writes it; `null` when it is not finite (JSON
    /// has no infinity or NaN).
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        rawValue(text.utf8)
    }

    /// Writes a member with a number value.
    public mutating func member(_ name: String, _ value: Double) {
        key(name)
        double(value)
    }

    /// Writes a member with any JSON value.
    public mutating func member(_ name: String, _ value: JSONValue, sortingKeys: Bool = false) {
        key(name)
        self.value(value, sortingKeys: sortingKeys)
    }

    /// Writes a JSON value: an object's members in their order, or, with `sortingKeys`, in key order at every depth
    /// (a duplicate key then keeps its last value, as a lookup does).
    public mutating func value(_ value: JSONValue, sortingKeys: Bool = false) {
        switch value {
        case .null: null()
        case .bool(let bool): self.bool(bool)
        case .int(let int): integer(int)
        case .double(let double): self.double(double)
        case .string(let string): self.string(string)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element, sortingKeys: sortingKeys) }
            endArray()
        case .object(let object):
            beginObject()
            if sortingKeys {
                for (name, member) in object.dictionary.sorted(by: { $0.key < $1.key }) {
                    self.member(name, member, sortingKeys: true)
                }
            } else {
                for (name, member) in object { self.member(name, member) }
            }
            endObject()
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text (see ``JSONTextWriter/value(_:sortingKeys:)``).
    public func jsonText(sortingKeys: Bool = false) -> String {
        String(decoding: jsonBytes(sortingKeys: sortingKeys), as: UTF8.self)
    }

    /// The value as compact JSON text in UTF-8.
    public func jsonBytes(sortingKeys: Bool = false) -> [UInt8] {
        var writer = JSONTextWriter()
        writer.value(self, sortingKeys: sortingKeys)
        return writer.bytes
    }
}

extension JSONObject {
    /// The object as compact JSON text in UTF-8, its members in their order.
    public var jsonBytes: [UInt8] { JSONValue.object(self).jsonBytes() }
}
