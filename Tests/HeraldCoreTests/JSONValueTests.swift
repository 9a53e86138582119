import Foundation
import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("JSON value and object", .tier(.unit))
struct JSONValueTests {
    static let document = #"{"b":[1,2.5,-0.125,"é\n\"",true,false,null,{}],"a":{"big":12345678901234567890,"n":-3}}"#

    @Test("Codable round trip: encoded with JSONEncoder and decoded again, the value is unchanged")
    func codableRoundTrip() throws {
        let value = try JSONParser.parse(Array(Self.document.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: encoded)
        // Decoding gives members in key order; the parser keeps document order (here, with sorted keys, the same).
        #expect(decoded.objectValue?.memberNames == ["a", "b"])
        #expect(decoded.dictionaryValue == value.dictionaryValue)
        #expect(try JSONParser.parse(Array(encoded)).dictionaryValue == value.dictionaryValue)
    }

    @Test("parsed and decoded agree on integers and doubles")
    func numbersAgree() throws {
        let text = #"[0,7,-12,2.5,1e-3,9007199254740993]"#
        let parsed = try JSONParser.parse(Array(text.utf8))
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(parsed == decoded)
        #expect(parsed.arrayValue?.last == .int(9_007_199_254_740_993))
    }

    @Test("accessors: integerValue is strict, intValue lenient as a device reads userInfo")
    func accessors() {
        #expect(JSONValue.int(3).integerValue == 3)
        #expect(JSONValue.double(3).integerValue == 3)
        #expect(JSONValue.double(3.5).integerValue == nil)
        #expect(JSONValue.double(1e16).integerValue == nil)
        #expect(JSONValue.bool(true).integerValue == nil)
        #expect(JSONValue.string("3").integerValue == nil)
        #expect(JSONValue.double(3.9).intValue == 3)
        #expect(JSONValue.bool(true).intValue == 1)
        #expect(JSONValue.string("3").intValue == 3)
        #expect(JSONValue.int(2).doubleValue == 2)
        #expect(JSONValue.string("x").doubleValue == nil)
        #expect(JSONValue.null.objectValue == nil && JSONValue.null.stringValue == nil && JSONValue.null.boolValue == nil)
    }

    @Test("an object from a dictionary has its members in key order; equal dictionaries make equal values")
    func fromDictionary() {
        let value = JSONValue.object(["z": .int(1), "a": .object(["y": .null, "b": .bool(true)])])
        #expect(value.objectValue?.memberNames == ["a", "z"])
        #expect(value.objectValue?["a"]?.objectValue?.memberNames == ["b", "y"])
        var other: [String: JSONValue] = [:]
        other["a"] = .object(["b": .bool(true), "y": .null])
        other["z"] = .int(1)
        #expect(JSONValue.object(other) == value)
        #expect(Set([value, .object(other)]).count == 1)
    }

    @Test("an object keeps duplicates in order; a lookup and the dictionary see the last")
    func duplicates() throws {
        let object = try #require(try JSONParser.parse(Array(#"{"a":1,"b":2,"a":3}"#.utf8)).objectValue)
        #expect(object.count == 3)
        #expect(object.memberNames == ["a", "b", "a"])
        #expect(object["a"] == .int(3))
        #expect(object.dictionary == ["a": .int(3), "b": .int(2)])
        #expect(object.map(\.key) == ["a", "b", "a"])
        #expect(object.contains("b") && !object.contains("c"))
        var built = JSONObject()
        #expect(built.isEmpty)
        built.append("k", .string("v"))
        #expect(built == JSONObject([("k", .string("v"))]))
        #expect(built != JSONObject([("k", .string("w"))]))
    }
}
