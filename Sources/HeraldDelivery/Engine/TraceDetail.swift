import HeraldCore

/// Writes the detail of a trace event: the text of a flat JSON object with camelCase keys.
///
/// Values are only strings, integers and booleans, written with HeraldCore's ``JSONTextWriter`` in the order given:
/// the engine writes a detail for every notification it sends.
enum TraceDetail {
    /// A field's value.
    enum Value: Hashable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    /// The JSON text of an object with these fields, in order; `nil` values are left out.
    static func object(_ fields: KeyValuePairs<String, Value?>) -> String {
        var writer = JSONTextWriter(capacity: 128)
        writer.beginObject()
        for (key, value) in fields {
            switch value {
            case .string(let string)?: writer.member(key, string)
            case .int(let number)?: writer.member(key, number)
            case .bool(let flag)?: writer.member(key, flag)
            case nil: continue
            }
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
