import Foundation

/// docs/inspection-api.json, read with Foundation, and a check of JSON values against its schemas.
///
/// The check covers the parts of JSON Schema the document uses in responses: `$ref`, `allOf`, `oneOf`, `type` (one or a
/// list), `const`, `enum`, `required`, `properties`, `additionalProperties: false`, `items`, `pattern`, `minimum` and
/// `maximum`. (`Tests/Interop/schemathesis.sh` checks the whole document with a full validator.)
struct OpenAPIDocument {
    let root: [String: Any]

    static func load() throws -> OpenAPIDocument {
        // Tests/HeraldDeliveryTests/Inspection/Support/OpenAPIDocument.swift → the repository root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        let data = try Data(contentsOf: url.appendingPathComponent("docs/inspection-api.json"))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Invalid(reason: "not an object") }
        return OpenAPIDocument(root: root)
    }

    struct Invalid: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Every path with its methods (lowercase).
    var operations: [String: Set<String>] {
        let paths = root["paths"] as? [String: [String: Any]] ?? [:]
        return paths.mapValues { Set($0.keys) }
    }

    /// The statuses documented for an operation.
    func statuses(path: String, method: String = "get") -> Set<Int> {
        let responses = operation(path: path, method: method)?["responses"] as? [String: Any] ?? [:]
        return Set(responses.keys.compactMap(Int.init))
    }

    /// The JSON schema of an operation's response with this status.
    func responseSchema(path: String, method: String = "get", status: Int) throws -> [String: Any] {
        let responses = operation(path: path, method: method)?["responses"] as? [String: Any] ?? [:]
        guard var response = responses[String(status)] as? [String: Any] else { throw Invalid(reason: "\(path) documents no \(status)") }
        if let reference = response["$ref"] as? String { response = try resolve(reference) }
        let content = response["content"] as? [String: Any]
        guard let schema = (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any] else {
            throw Invalid(reason: "\(path) \(status) has no JSON schema")
        }
        return schema
    }

    /// The problems of `value` against `schema`; empty when it conforms.
    func problems(_ value: Any, against schema: [String: Any], at location: String = "$") throws -> [String] {
        if let reference = schema["$ref"] as? String { return try problems(value, against: try resolve(reference), at: location) }
        var found: [String] = []
        if let parts = schema["allOf"] as? [[String: Any]] {
            for part in parts { found += try problems(value, against: part, at: location) }
        }
        if let branches = schema["oneOf"] as? [[String: Any]] {
            let matching = try branches.filter { try problems(value, against: $0, at: location).isEmpty }.count
            if matching != 1 { found.append("\(location) matches \(matching) of oneOf's \(branches.count) schemas, not 1") }
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [(type as? String) ?? ""]
            guard types.contains(where: { Self.value(value, is: $0) }) else { return found + ["\(location) is not \(types)"] }
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) {
            found.append("\(location) = \(value) is not one of \(allowed)")
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            found.append("\(location) = \(value) is not \(constant)")
        }
        if let pattern = schema["pattern"] as? String, let string = value as? String, string.range(of: pattern, options: .regularExpression) == nil {
            found.append("\(location) = \(string) does not match \(pattern)")
        }
        if Self.value(value, is: "number"), let number = value as? NSNumber {
            if let minimum = schema["minimum"] as? NSNumber, number.doubleValue < minimum.doubleValue { found.append("\(location) < \(minimum)") }
            if let maximum = schema["maximum"] as? NSNumber, number.doubleValue > maximum.doubleValue { found.append("\(location) > \(maximum)") }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(location).\(key) is missing") }
            if schema["additionalProperties"] as? Bool == false {
                let known = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
                for key in object.keys where !known.contains(key) { found.append("\(location).\(key) is not in the schema") }
            }
            for (key, property) in schema["properties"] as? [String: [String: Any]] ?? [:] {
                if let member = object[key] { found += try problems(member, against: property, at: "\(location).\(key)") }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() { found += try problems(element, against: items, at: "\(location)[\(index)]") }
        }
        return found
    }

    private func operation(path: String, method: String) -> [String: Any]? {
        ((root["paths"] as? [String: Any])?[path] as? [String: Any])?[method] as? [String: Any]
    }

    private func resolve(_ reference: String) throws -> [String: Any] {
        guard reference.hasPrefix("#/") else { throw Invalid(reason: "external reference \(reference)") }
        var node: Any = root
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let next = (node as? [String: Any])?[String(part)] else { throw Invalid(reason: "unresolved \(reference)") }
            node = next
        }
        guard let schema = node as? [String: Any] else { throw Invalid(reason: "\(reference) is not an object") }
        return schema
    }

    /// Whether two JSON scalars are the same value (a boolean is never a number).
    private static func equal(_ left: Any, _ right: Any) -> Bool {
        if Self.value(left, is: "boolean") || Self.value(right, is: "boolean") {
            return Self.value(left, is: "boolean") && Self.value(right, is: "boolean")
                && (left as? NSNumber)?.boolValue == (right as? NSNumber)?.boolValue
        }
        if let left = left as? String { return left == right as? String }
        if Self.value(left, is: "number"), Self.value(right, is: "number") {
            return (left as? NSNumber)?.doubleValue == (right as? NSNumber)?.doubleValue
        }
        return false
    }

    private static func value(_ value: Any, is type: String) -> Bool {
        // Foundation reads JSON booleans as NSNumbers whose type is `c` (char), and numbers as other NSNumbers.
        let number = value as? NSNumber
        let isBoolean = number.map { String(cString: $0.objCType) == "c" } ?? false
        switch type {
        case "null": return value is NSNull
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return isBoolean
        case "integer": return !isBoolean && number.map { $0.doubleValue.rounded() == $0.doubleValue } == true
        case "number": return !isBoolean && number != nil
        default: return false
        }
    }
}
