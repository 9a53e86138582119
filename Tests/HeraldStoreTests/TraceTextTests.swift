import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("The trace column's text form", .tier(.unit))
struct TraceTextTests {
    @Test("Lines round-trip: with and without a detail, negative and large times, in order")
    func roundTrip() throws {
        let lines = [
            TraceText.Line(atMilliseconds: 1_700_000_000_042, kind: "accepted", detail: nil),
            TraceText.Line(atMilliseconds: -5, kind: "stored", detail: #"{"reason":"device-offline","expiresAt":9}"#),
            TraceText.Line(atMilliseconds: Int64.max, kind: "displayed", detail: #"{"text":"a}\"b","nested":{"x":[1,{}]}}"#),
        ]
        let text = lines.map(TraceText.line).joined()
        #expect(text.hasPrefix(#"{"at":1700000000042,"kind":"accepted"}"# + "\n"))
        #expect(text.hasSuffix("}\n"))
        #expect(TraceText.lines(text) == lines)
        #expect(TraceText.lines("") == [])
        #expect(TraceText.acceptedLine(at: 7) == TraceText.line(TraceText.Line(atMilliseconds: 7, kind: "accepted", detail: nil)))
    }

    @Test(
        "A line not in the form is refused, not guessed",
        arguments: [
            "accepted\n",
            #"{"at":,"kind":"sent"}"# + "\n",
            #"{"at":12x,"kind":"sent"}"# + "\n",
            #"{"at":99999999999999999999,"kind":"sent"}"# + "\n",
            #"{"at":1,"kind":"sent"#,
            #"{"at":1,"kind":"sent","detail":}"# + "\n",
            #"{"at":1,"kind":"sent","details":{}}"# + "\n",
            #"{"at":1,"kind":"sent"},"# + "\n",
        ]
    )
    func malformed(text: String) {
        #expect(TraceText.lines(text) == nil)
    }

    @Test("Kinds are 1 to 64 of a-z and '-'; a detail must open as an object")
    func validation() {
        #expect(TraceText.isValidKind("acknowledged"))
        #expect(TraceText.isValidKind(String(repeating: "a", count: 64)))
        #expect(!TraceText.isValidKind(""))
        #expect(!TraceText.isValidKind(String(repeating: "a", count: 65)))
        #expect(!TraceText.isValidKind("Bad Kind"))
        #expect(!TraceText.isValidKind("sent\""))
        #expect(TraceText.looksLikeObject(" \n{\"a\":1}"))
        #expect(!TraceText.looksLikeObject("[1, 2]"))
        #expect(!TraceText.looksLikeObject(""))
    }

    @Test("A history that moves gets its own accepted detail written out; other lines are kept as they are")
    func materialized() throws {
        let text =
            TraceText.acceptedLine(at: 1)
            + TraceText.line(TraceText.Line(atMilliseconds: 2, kind: "accepted", detail: #"{"seq":0}"#))
            + TraceText.line(TraceText.Line(atMilliseconds: 3, kind: "stored", detail: #"{"reason":"device-offline"}"#))
        let moved = try #require(TraceText.materialized(text, sequence: 41, token: "ab", topic: "com.\"x\"\u{7}"))
        #expect(
            TraceText.lines(moved)?.map(\.detail) == [
                #"{"seq":41,"token":"ab","topic":"com.\"x\"\u0007"}"#, #"{"seq":0}"#, #"{"reason":"device-offline"}"#,
            ]
        )
        #expect(TraceText.materialized("garbage\n", sequence: 1, token: "", topic: "") == nil)
    }
}
