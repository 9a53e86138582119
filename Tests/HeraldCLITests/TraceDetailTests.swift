import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `herald trace`'s event details for people (issue 37, item 15): members in order, words bare, text quoted.
@Suite("herald trace: readable event details", .tier(.unit))
struct TraceDetailTests {
    @Test("a device's displayed report reads as members in its order; null, \"\", [] and {} are left out")
    func displayed() {
        let detail =
            #"{"title":"Hello from Herald","subtitle":null,"body":"","badge":3,"sound":"default","presentation":["list","banner"],"#
            + #""attachments":[],"inNotificationCenter":true,"contentExtension":null,"actions":[{"identifier":"open","title":"Open it"}]}"#
        #expect(
            TraceDetail.readable(detail)
                == #"title "Hello from Herald", badge 3, sound default, presentation [list, banner], inNotificationCenter true, "#
                + #"actions [{identifier open, title "Open it"}]"#
        )
    }

    @Test("a fault event and a sent event; text that is not a JSON object is printed as it is")
    func other() {
        #expect(TraceDetail.readable(#"{"rule":"gone","status":410,"reason":"Unregistered"}"#) == "rule gone, status 410, reason Unregistered")
        #expect(TraceDetail.readable(#"{"attempt":1}"#) == "attempt 1")
        #expect(TraceDetail.readable("not json") == "not json")
        #expect(TraceDetail.readable("[1,2]") == "[1,2]")
    }

    @Test("json writes a value back in its members' order")
    func json() throws {
        let text = #"{"rule":"gone","status":410,"nested":{"b":[true,null,1.5],"a":"x"}}"#
        #expect(TraceDetail.json(try JSONParser.parse(Array(text.utf8))) == text)
    }
}
