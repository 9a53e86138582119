import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("JSON member scanner", .tier(.unit))
struct JSONMemberScannerTests {
    /// The members as (name, value text) pairs.
    static func members(_ text: String) -> [(name: String, value: String)] {
        let bytes = Array(text.utf8)
        return JSONMemberScanner(bytes).map { member in
            (JSONMemberScanner.name(of: member, in: bytes), String(decoding: bytes[member.value], as: UTF8.self))
        }
    }

    @Test("steps over nested objects and arrays, and strings holding braces, brackets and escaped quotes")
    func nestedValues() {
        let text = #"{"a":{"b":[1,{"c":"}]"}]},"s":"x\"}{\\","l":[[],{}],"n":-1.5e3,"t":true,"z":null}"#
        let members = Self.members(text)
        #expect(members.map(\.name) == ["a", "s", "l", "n", "t", "z"])
        #expect(members.map(\.value) == [#"{"b":[1,{"c":"}]"}]}"#, #""x\"}{\\""#, "[[],{}]", "-1.5e3", "true", "null"])
    }

    @Test("whitespace around names, colons, values and commas is not part of a member")
    func whitespace() {
        let members = Self.members(" \n{ \"a\" :\t1 ,\r\n \"b\"\n:\n[ 2 ] \n}\n")
        #expect(members.map(\.name) == ["a", "b"])
        #expect(members.map(\.value) == ["1", "[ 2 ]"])
    }

    @Test("duplicate names are all listed; lastValue finds the last")
    func duplicates() throws {
        let bytes = Array(#"{"k":1,"other":{"k":9},"k":{"v":2}}"#.utf8)
        #expect(JSONMemberScanner(bytes).map { JSONMemberScanner.name(of: $0, in: bytes) } == ["k", "other", "k"])
        let last = try #require(JSONMemberScanner.lastValue(named: "k", in: bytes))
        #expect(String(decoding: bytes[last], as: UTF8.self) == #"{"v":2}"#)
        #expect(JSONMemberScanner.lastValue(named: "v", in: bytes) == nil)
    }

    @Test("a name written with escapes matches its decoded text")
    func escapedNames() throws {
        let bytes = Array(#"{"p\u0061yload":{"x":1},"\"q\"":2}"#.utf8)
        let payload = try #require(JSONMemberScanner.lastValue(named: "payload", in: bytes))
        #expect(String(decoding: bytes[payload], as: UTF8.self) == #"{"x":1}"#)
        #expect(JSONMemberScanner(bytes).map { JSONMemberScanner.name(of: $0, in: bytes) } == ["payload", "\"q\""])
        #expect(JSONMemberScanner.lastValue(named: "p\\u0061yload", in: bytes) == nil)
    }

    @Test("an empty object, an array or a scalar document has no members", arguments: ["{}", " { } ", "[1]", "\"s\"", "1", ""])
    func noMembers(_ text: String) {
        #expect(Self.members(text).isEmpty)
    }

    @Test(
        "truncated input: the members read whole before the cut, nothing past the end",
        arguments: [
            (#"{"a":1,"b":{"c":"#, ["a"]), (#"{"a":1,"b":"unterminated"#, ["a"]), (#"{"a":1,"b":12"#, ["a"]),
            (#"{"a":[1,2],"b""#, ["a"]), (#"{"a""#, []), (#"{"a":"#, []), (#"{"a":"x\"#, []), ("{", []),
        ]
    )
    func truncated(_ text: String, _ names: [String]) {
        let bytes = Array(text.utf8)
        let members = Array(JSONMemberScanner(bytes))
        #expect(members.map { JSONMemberScanner.name(of: $0, in: bytes) } == names)
        #expect(members.allSatisfy { $0.value.upperBound <= bytes.count })
    }

    @Test("every truncation of a document is scanned without reading past the end")
    func everyTruncation() {
        let bytes = Array(#"{"aps":{"alert":{"title":"a\"}","body":"é"},"badge":3},"list":[1,[2,{"x":null}]],"s":"\\"}"#.utf8)
        for end in 0...bytes.count {
            let prefix = Array(bytes[..<end])
            for member in JSONMemberScanner(prefix) {
                #expect(member.value.upperBound <= prefix.count)
            }
        }
        #expect(Array(JSONMemberScanner(bytes)).count == 3)
    }
}
