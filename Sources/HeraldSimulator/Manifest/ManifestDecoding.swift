import Foundation

/// A coding key for any member name, used to see the keys a manifest object really has.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Refuses members the format does not have: a typo (`"catgories"`) must not silently fall
    /// back to a default.
    func rejectUnknownKeys<Key: CodingKey & CaseIterable>(_ keys: Key.Type) throws {
        let known = Key.allCases.map(\.stringValue)
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !known.contains(key.stringValue) {
            let hint = Self.suggestion(for: key.stringValue, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw ManifestError(
                .unknownField,
                field: ManifestError.path(codingPath + [key]),
                reason: "unknown field\(hint); known fields: \(known.joined(separator: ", "))"
            )
        }
    }

    private static func suggestion(for name: String, among known: [String]) -> String? {
        let lowered = name.lowercased()
        if let match = known.first(where: { $0.lowercased() == lowered }) { return match }
        let scored = known.map { ($0, editDistance(lowered, $0.lowercased())) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    private static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension KeyedDecodingContainer {
    /// The value, or `fallback` when the member is absent or `null`.
    func decode<T: Decodable>(_ key: Key, or fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }

    /// A manifest error for this member.
    func invalid(_ key: Key, _ reason: String, code: ManifestError.Code = .invalidValue) -> ManifestError {
        ManifestError(code, field: ManifestError.path(codingPath + [key]), reason: reason)
    }

    /// A non-empty string.
    func decodeNonEmpty(_ key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard !value.isEmpty else { throw invalid(key, "must not be empty") }
        return value
    }

    /// A list of names mapped through `table` (option sets, enumerations); an unknown name is an
    /// error that lists the allowed ones.
    func decodeNames<Value>(_ key: Key, table: KeyValuePairs<String, Value>, or fallback: [String]) throws -> [Value] {
        let names = try decode(key, or: fallback)
        return try names.map { name in
            guard let value = table.first(where: { $0.key == name })?.value else {
                throw invalid(key, "unknown value \"\(name)\"; allowed: \(table.map(\.key).joined(separator: ", "))")
            }
            return value
        }
    }

    /// One name mapped through `table`.
    func decodeName<Value>(_ key: Key, table: KeyValuePairs<String, Value>, or fallback: String) throws -> Value {
        try decodeNameIfPresent(key, table: table) ?? decodeName(key, table: table, name: fallback)
    }

    /// One name mapped through `table`, or `nil` when absent or `null`.
    func decodeNameIfPresent<Value>(_ key: Key, table: KeyValuePairs<String, Value>) throws -> Value? {
        guard let name = try decodeIfPresent(String.self, forKey: key) else { return nil }
        return try decodeName(key, table: table, name: name)
    }

    private func decodeName<Value>(_ key: Key, table: KeyValuePairs<String, Value>, name: String) throws -> Value {
        guard let value = table.first(where: { $0.key == name })?.value else {
            throw invalid(key, "unknown value \"\(name)\"; allowed: \(table.map(\.key).joined(separator: ", "))")
        }
        return value
    }
}
