import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: client → server frames", .tier(.unit))
struct DeviceLinkClientMessageTests {
    static let apnsID = NotificationID("8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01")!

    private func decode(_ text: String) throws(DeviceLinkError) -> DeviceLinkClientMessage {
        try DeviceLinkClientMessage(frame: Array(text.utf8))
    }

    @Test("every message survives a round trip through its frame")
    func roundTrip() throws {
        let messages: [DeviceLinkClientMessage] = [
            .hello(.device(id: "d1", secret: "s\"ecret\n")),
            .hello(.enrol(name: "Kitchen iPad ✓")),
            .register(DeviceLinkAppRequest(id: "r1", bundleID: "com.example.app", environment: .sandbox)),
            .register(DeviceLinkAppRequest(id: nil, bundleID: "com.example.app", environment: .production)),
            .unregister(DeviceLinkAppRequest(id: "r2", bundleID: "com.example.app", environment: .production)),
            .ack(apnsID: Self.apnsID),
            .report(DeviceLinkReport(apnsID: Self.apnsID, event: .displayed, detail: Array(#"{"title":"Hi","n":[1,2]}"#.utf8))),
            .report(DeviceLinkReport(apnsID: Self.apnsID, event: .dismissed)),
        ]
        for message in messages {
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }
    }

    @Test("frames read as the protocol document writes them")
    func documentedExamples() throws {
        #expect(try decode(#"{"type":"hello","device":"d1","secret":"abc"}"#) == .hello(.device(id: "d1", secret: "abc")))
        #expect(try decode(#"{"type":"hello","enrol":"phone"}"#) == .hello(.enrol(name: "phone")))
        #expect(
            try decode(#" {"type":"register","id":"r1","bundleID":"com.example.app","environment":"sandbox","extra":[1]} "#)
                == .register(DeviceLinkAppRequest(id: "r1", bundleID: "com.example.app", environment: .sandbox))
        )
        // The environment defaults to sandbox.
        #expect(
            try decode(#"{"type":"unregister","bundleID":"com.example.app"}"#)
                == .unregister(DeviceLinkAppRequest(id: nil, bundleID: "com.example.app", environment: .sandbox))
        )
        let upper = NotificationID("8F0E2C2A-1B4E-4D2A-9C53-2F1A0F6B7E01")!
        #expect(try decode(#"{"type":"ack","apnsID":"8F0E2C2A-1B4E-4D2A-9C53-2F1A0F6B7E01"}"#) == .ack(apnsID: upper))
    }

    @Test("a report's detail is kept byte for byte, including escapes and the last duplicate")
    func reportDetailVerbatim() throws {
        let detail = #"{ "title" : "caf\u00e9 \"quoted\"", "nested": {"a": [true, null, 1.5e3]} }"#
        let text = #"{"type":"report","apnsID":"\#(Self.apnsID)","event":"modified","detail":{"first":1},"detail":\#(detail)}"#
        guard case .report(let report) = try decode(text) else {
            Issue.record("not a report")
            return
        }
        #expect(report.event == .modified)
        #expect(report.detail == Array(detail.utf8))
    }

    @Test("a key written with escapes still names the member")
    func escapedKey() throws {
        let text = #"{"type":"report","apnsID":"\#(Self.apnsID)","event":"action","det\u0061il":{"action":"reply"}}"#
        guard case .report(let report) = try decode(text) else {
            Issue.record("not a report")
            return
        }
        #expect(report.detail == Array(#"{"action":"reply"}"#.utf8))
    }

    @Test(
        "malformed frames are refused with malformed-frame",
        arguments: [
            "",
            "not json",
            "[1,2]",
            "\"hello\"",
            "{\"type\":\"hello\"",
            "{\"type\":\"hello\",\"device\":\"d\",\"secret\":\"s\"} trailing",
            "{\"device\":\"d\"}",
            "{\"type\":7}",
            "{\"type\":\"hello\"}",
            "{\"type\":\"hello\",\"device\":\"d\"}",
            "{\"type\":\"hello\",\"device\":\"d\",\"secret\":\"s\",\"enrol\":\"n\"}",
            "{\"type\":\"hello\",\"enrol\":\"\"}",
            "{\"type\":\"hello\",\"enrol\":\"tab\\there\"}",
            "{\"type\":\"hello\",\"device\":1,\"secret\":\"s\"}",
            "{\"type\":\"register\"}",
            "{\"type\":\"register\",\"bundleID\":5}",
            "{\"type\":\"register\",\"id\":7,\"bundleID\":\"com.example.app\"}",
            "{\"type\":\"ack\"}",
            "{\"type\":\"ack\",\"apnsID\":\"not-a-uuid\"}",
            "{\"type\":\"report\",\"apnsID\":\"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01\"}",
            "{\"type\":\"report\",\"apnsID\":\"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01\",\"event\":\"displayed\",\"detail\":[1]}",
            "{\"type\":\"report\",\"apnsID\":\"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01\",\"event\":\"displayed\",\"detail\":\"x\"}",
            "{\"type\":\"hello\",\"device\":\"\\ud800\",\"secret\":\"s\"}",
            "{\"type\":\"hello\",\"device\":\"d\",\"secret\":\"s\",}",
        ]
    )
    func malformed(text: String) {
        #expect(decodingError(text)?.code == .malformedFrame)
    }

    @Test("invalid UTF-8, control characters and deep nesting are refused, not trapped on")
    func hostileBytes() {
        let invalidUTF8: [UInt8] = Array(#"{"type":"hello","device":""#.utf8) + [0xFF, 0xFE] + Array(#"","secret":"s"}"#.utf8)
        #expect(throws: DeviceLinkError.self) { try DeviceLinkClientMessage(frame: invalidUTF8) }
        let control: [UInt8] = Array(#"{"type":"hello","device":"a"#.utf8) + [0x01] + Array(#"","secret":"s"}"#.utf8)
        #expect(throws: DeviceLinkError.self) { try DeviceLinkClientMessage(frame: control) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(decodingError(#"{"type":"report","detail":\#(deep)}"#)?.code == .malformedFrame)
        #expect(decodingError(String(repeating: "{", count: 100_000))?.code == .malformedFrame)
    }

    @Test("an unknown type is unknown-type and keeps the request id")
    func unknownType() {
        let error = decodingError(#"{"type":"subscribe","id":"r9"}"#)
        #expect(error?.code == .unknownType)
        #expect(error?.id == "r9")
    }

    @Test("errors carry the request id and apns-id when the frame had them")
    func errorsCarryIdentifiers() {
        let bundle = decodingError(#"{"type":"register","id":"r3","bundleID":"com.example/app"}"#)
        #expect(bundle?.code == .invalidBundleID)
        #expect(bundle?.id == "r3")
        let environment = decodingError(#"{"type":"register","id":"r4","bundleID":"com.example.app","environment":"staging"}"#)
        #expect(environment?.code == .invalidEnvironment)
        #expect(environment?.id == "r4")
        let event = decodingError(#"{"type":"report","apnsID":"\#(Self.apnsID)","event":"exploded"}"#)
        #expect(event?.code == .unknownEvent)
        #expect(event?.apnsID == Self.apnsID.text)
        let missing = decodingError(#"{"type":"register","id":"r5"}"#)
        #expect(missing?.code == .malformedFrame)
        #expect(missing?.id == "r5")
        #expect(missing?.message.contains("bundleID") == true)
    }

    @Test("an over-long enrolment name is refused")
    func longName() {
        let name = String(repeating: "n", count: DeviceLinkClientMessage.maximumNameLength + 1)
        #expect(decodingError(#"{"type":"hello","enrol":"\#(name)"}"#)?.code == .malformedFrame)
        let longest = String(repeating: "n", count: DeviceLinkClientMessage.maximumNameLength)
        #expect(decodingError(#"{"type":"hello","enrol":"\#(longest)"}"#) == nil)
    }

    @Test("every reportable event is accepted")
    func events() throws {
        for event in DeviceLinkReportEvent.allKnown {
            let message = try decode(#"{"type":"report","apnsID":"\#(Self.apnsID)","event":"\#(event)"}"#)
            #expect(message == .report(DeviceLinkReport(apnsID: Self.apnsID, event: event)))
        }
    }
}
