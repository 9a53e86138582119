import Foundation
import HeraldCore

/// A property-list/JSON value that can cross concurrency domains: HeraldCore's ``HeraldCore/JSONValue``, the one JSON
/// value type of Herald, under the name this module has always used.
///
/// `userInfo` dictionaries (`[AnyHashable: Any]`) and APNs payloads are stored as `JSONValue`
/// so that requests and notifications are `Sendable`. Values that are not JSON or property-list
/// types (arbitrary objects) are dropped when converted, as Apple only accepts property-list
/// types in `userInfo`.
public typealias JSONValue = HeraldCore.JSONValue

/// The members of a JSON object, in order (HeraldCore's ``HeraldCore/JSONObject``), as ``JSONValue/objectValue`` gives them.
public typealias JSONObject = HeraldCore.JSONObject

extension JSONValue {
    /// Converts a Foundation value (as produced by `JSONSerialization` or written by hand in
    /// a `userInfo` literal); returns `nil` for values that are not JSON or property-list types.
    public init?(any value: Any) {
        switch value {
        case is NSNull:
            self = .null
        case let bool as Bool where type(of: value) == Bool.self:
            self = .bool(bool)
        case let number as NSNumber where type(of: value) != Int.self && type(of: value) != Double.self:
            let kind = String(cString: number.objCType)
            if kind == "c" || kind == "B" {
                self = .bool(number.boolValue)
            } else if kind == "d" || kind == "f" {
                self = .double(number.doubleValue)
            } else {
                self = .int(number.intValue)
            }
        case let int as Int:
            self = .int(int)
        case let double as Double:
            self = .double(double)
        case let float as Float:
            self = .double(Double(float))
        case let string as String:
            self = .string(string)
        case let url as URL:
            self = .string(url.absoluteString)
        case let date as Date:
            self = .double(date.timeIntervalSince1970)
        case let data as Data:
            self = .string(data.base64EncodedString())
        case let array as [Any]:
            self = .array(array.compactMap { JSONValue(any: $0) })
        case let dictionary as [String: Any]:
            self = .object(dictionary.compactMapValues { JSONValue(any: $0) })
        case let dictionary as [AnyHashable: Any]:
            self = .object(JSONValue.stringKeyed(dictionary))
        default:
            return nil
        }
    }

    /// Converts a `userInfo`-style dictionary; keys that are not strings are written with
    /// their description, values that are not JSON types are dropped.
    public static func stringKeyed(_ dictionary: [AnyHashable: Any]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, value) in dictionary {
            let name = (key.base as? String) ?? String(describing: key.base)
            if let converted = JSONValue(any: value) {
                result[name] = converted
            }
        }
        return result
    }

    /// The Foundation value (`String`, `Int`, `Double`, `Bool`, `[Any]`, `[String: Any]`, `NSNull`).
    public var anyValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.anyValue)
        case .object(let values): values.dictionary.mapValues(\.anyValue) as [String: Any]
        }
    }
}

extension [String: JSONValue] {
    /// The dictionary as a `userInfo` value.
    var userInfoValue: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = [:]
        for (key, value) in self {
            result[key] = value.anyValue
        }
        return result
    }
}
