import HeraldCore
import HeraldTestTiers
import Testing

@Suite("APNSFile: .apns files as xcrun simctl push reads them", .tier(.unit))
struct APNSFileTests {
    private func parse(_ text: String) throws -> APNSFile {
        try APNSFile(bytes: Array(text.utf8))
    }

    private func text(_ file: APNSFile) -> String { String(decoding: file.payload, as: UTF8.self) }

    @Test("the target bundle is read and taken out; the rest stays byte for byte")
    func removesTargetBundle() throws {
        let file = try parse(
            """
            {
                "Simulator Target Bundle": "com.example.app",
                "aps": { "alert": { "title": "Hi", "body": "a } \\" , in a string" }, "badge": 1.50 },
                "custom": [1, {"x": "]"}]
            }
            """
        )
        #expect(file.targetBundle == "com.example.app")
        #expect(
            text(file) == """
                {
                    "aps": { "alert": { "title": "Hi", "body": "a } \\" , in a string" }, "badge": 1.50 },
                    "custom": [1, {"x": "]"}]
                }
                """
        )
        #expect(file.object.memberNames == ["aps", "custom"])
    }

    @Test(
        "the key is removed wherever it is",
        arguments: [
            (#"{"Simulator Target Bundle":"b","aps":{}}"#, #"{"aps":{}}"#),
            (#"{"aps":{},"Simulator Target Bundle":"b"}"#, #"{"aps":{}}"#),
            (#"{"a":1,"Simulator Target Bundle":"b","c":2}"#, #"{"a":1,"c":2}"#),
            (#"{ "Simulator Target Bundle" : "b" }"#, #"{  }"#),
            (#"{"Simulator Target Bundle":"x","a":true,"Simulator Target Bundle":"b"}"#, #"{"a":true}"#),
            (#"{"Simulator\u0020Target Bundle":"b","n":null}"#, #"{"n":null}"#),
        ]
    )
    func removalPositions(input: String, expected: String) throws {
        let file = try parse(input)
        #expect(file.targetBundle == "b")
        #expect(text(file) == expected)
        #expect((try? JSONParser.parse(file.payload)) != nil)
    }

    @Test("a payload without the key is unchanged")
    func withoutTargetBundle() throws {
        let input = "{\"aps\":{\"content-available\":1}}\n"
        let file = try parse(input)
        #expect(file.targetBundle == nil)
        #expect(text(file) == input)
    }

    @Test(
        "what is not a JSON object, or a target bundle that is not a string, is refused",
        arguments: ["", "[]", "\"text\"", "{\"aps\":", "{\"Simulator Target Bundle\": 3}", "{} {}"]
    )
    func refused(input: String) {
        #expect(throws: APNSFile.ParseError.self) { try parse(input) }
    }
}
