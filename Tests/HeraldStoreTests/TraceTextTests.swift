import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("The trace column's text form", .tier(.unit))
struct TraceTextTests {
    private static let accepted: Int64 = 1_700_000_000_000

    @Test("Lines round-trip: with and without a detail, repeated details, unknown kinds, negative and extreme times")
    func roundTrip() throws {
        let lines = [
            TraceText.Line(atMilliseconds: Self.accepted, kind: "accepted", detail: nil),
            TraceText.Line(atMilliseconds: -5, kind: "stored", detail: #"{"reason":"device-offline","expiresAt":9}"#),
            TraceText.Line(atMilliseconds: Self.accepted + 3, kind: "sent", detail: #"{"attempt":1,"session":"session-7","device":"d"}"#),
            TraceText.Line(atMilliseconds: Self.accepted + 9, kind: "acknowledged", detail: #"{"attempt":1,"session":"session-7","device":"d"}"#),
            TraceText.Line(atMilliseconds: Int64.max, kind: "displayed", detail: #"{"text":"a}\"b ^","nested":{"x":[1,{}],"y":null,"z":false}}"#),
            TraceText.Line(atMilliseconds: Int64.min, kind: "custom-kind", detail: #"{"late":true}"#),
            TraceText.Line(atMilliseconds: 0, kind: "x", detail: nil),
        ]
        let text = TraceText.encode(lines, acceptedAt: Self.accepted, device: nil)
        #expect(text.hasPrefix("A0\n"))
        #expect(text.hasSuffix("\n"))
        #expect(text.contains("K9 ^\n"), "the acknowledgement repeats the sent detail as one byte: \(text.debugDescription)")
        #expect(text.contains("custom-kind:"))
        #expect(TraceText.lines(text, acceptedAt: Self.accepted, device: nil) == lines)
        #expect(TraceText.lines("", acceptedAt: 0, device: nil) == [])
        #expect(
            TraceText.lines(TraceText.acceptedLine, acceptedAt: 42, device: nil) == [
                TraceText.Line(atMilliseconds: 42, kind: "accepted", detail: nil)
            ]
        )
    }

    @Test("A delivered notification's three events take a few dozen bytes, a fifth of their JSON lines")
    func compact() throws {
        let device = "08cc02d7-bb2c-4f30-a943-27140025e057"
        let detail = #"{"attempt":1,"session":"session-12","device":""# + device + #""}"#
        let lines = [
            TraceText.Line(atMilliseconds: Self.accepted, kind: "accepted", detail: nil),
            TraceText.Line(atMilliseconds: Self.accepted + 2, kind: "sent", detail: detail),
            TraceText.Line(atMilliseconds: Self.accepted + 4, kind: "acknowledged", detail: detail),
        ]
        let json = lines.map(TraceText.version4Line).joined()
        // Without knowing the token's device, the device id is written out once.
        let withoutDevice = TraceText.encode(lines, acceptedAt: Self.accepted, device: nil)
        #expect(withoutDevice.utf8.count <= 60, "\(withoutDevice.utf8.count) bytes: \(withoutDevice.debugDescription)")
        #expect(withoutDevice.utf8.count * 4 < json.utf8.count, "\(withoutDevice.utf8.count) against \(json.utf8.count)")
        #expect(TraceText.lines(withoutDevice, acceptedAt: Self.accepted, device: nil) == lines)
        // Knowing it, it is one byte; read with the same device, every line is back.
        let compact = TraceText.encode(lines, acceptedAt: Self.accepted, device: device)
        #expect(compact.utf8.count <= 24, "\(compact.utf8.count) bytes: \(compact.debugDescription)")
        #expect(compact.utf8.contains(TraceText.deviceByte))
        #expect(TraceText.lines(compact, acceptedAt: Self.accepted, device: device) == lines)
        // Read without the device, a trace that names it is refused, not guessed.
        #expect(TraceText.lines(compact, acceptedAt: Self.accepted, device: nil) == nil)
    }

    @Test("Only a device id that can stand for itself is written as its byte; another device's id is written out")
    func deviceByte() throws {
        let line = { (device: String) in
            TraceText.Line(atMilliseconds: 1, kind: "sent", detail: #"{"device":""# + device + #"","other":"abc""}"#)
        }
        for (rowDevice, detailDevice, byte) in [
            ("phone-1", "phone-1", true), ("phone-1", "phone-2", false), ("ab", "ab", false), ("a\"b", "x", false),
        ] {
            let text = TraceText.encode([line(detailDevice)], acceptedAt: 0, device: rowDevice)
            #expect(text.utf8.contains(TraceText.deviceByte) == byte, "\(rowDevice) \(detailDevice)")
            #expect(TraceText.lines(text, acceptedAt: 0, device: rowDevice) == [line(detailDevice)])
        }
    }

    @Test("Appending one line at a time writes what encoding the whole trace writes, back-references included")
    func appending() throws {
        let detail = #"{"attempt":2,"session":"session-1","device":"x"}"#
        let lines = [
            TraceText.Line(atMilliseconds: 10, kind: "accepted", detail: nil),
            TraceText.Line(atMilliseconds: 11, kind: "sent", detail: detail),
            TraceText.Line(atMilliseconds: 12, kind: "acknowledged", detail: detail),
            TraceText.Line(atMilliseconds: 13, kind: "displayed", detail: detail),
            TraceText.Line(atMilliseconds: 14, kind: "removed", detail: nil),
            TraceText.Line(atMilliseconds: 15, kind: "removed", detail: #"{"reason":"opened"}"#),
        ]
        var text = ""
        for line in lines {
            text = try #require(TraceText.appending(line, to: text, acceptedAt: 10, device: nil))
        }
        #expect(text == TraceText.encode(lines, acceptedAt: 10, device: nil))
        #expect(text.components(separatedBy: "^").count == 3, "two back-references: \(text.debugDescription)")
        #expect(TraceText.lines(text, acceptedAt: 10, device: nil) == lines)
        #expect(TraceText.appending(lines[1], to: "garbage\n", acceptedAt: 0, device: nil) == nil)
    }

    @Test("5,000 random traces from the pieces the tables code (and their neighbours) decode to what was encoded")
    func randomTraces() throws {
        var generator = SplitMix64(seed: 21)
        let device = "08cc02d7-bb2c-4f30-a943-27140025e057"
        let pieces =
            TraceText.dictionary.map(\.text) + [
                device, String(device.prefix(10)), "^", " ", "\\\"", "\\u0007", "é", "{", "}", ":", ",", "\"", "1", "-", "session-",
                "A0", "null", "tru",
            ]
        let kinds = TraceText.kindCodes.map(\.kind) + ["custom", "a-b", "z"]
        var seen = (backReferences: 0, deviceBytes: 0, dictionaryBytes: 0)
        for _ in 0..<5000 {
            var lines: [TraceText.Line] = []
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                var detail: String?
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: detail = nil
                case 1 where lines.last?.detail != nil: detail = lines.last?.detail
                default:
                    detail = "{" + (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() + "}"
                }
                let at = Int64.random(in: -3...3, using: &generator) * Int64.random(in: 0...Int64.max / 4, using: &generator)
                lines.append(TraceText.Line(atMilliseconds: at, kind: kinds.randomElement(using: &generator)!, detail: detail))
            }
            let acceptedAt = Int64.random(in: Int64.min...Int64.max, using: &generator)
            let rowDevice: String? = Bool.random(using: &generator) ? device : nil
            let text = TraceText.encode(lines, acceptedAt: acceptedAt, device: rowDevice)
            try #require(TraceText.lines(text, acceptedAt: acceptedAt, device: rowDevice) == lines, "\(lines) as \(text.debugDescription)")
            seen.backReferences += text.components(separatedBy: " ^\n").count - 1
            seen.deviceBytes += text.utf8.filter { $0 == TraceText.deviceByte }.count
            seen.dictionaryBytes += text.utf8.filter { $0 < 0x20 && $0 != 0x0A && $0 != TraceText.deviceByte }.count
            var appended = ""
            for line in lines {
                appended = try #require(TraceText.appending(line, to: appended, acceptedAt: acceptedAt, device: rowDevice))
            }
            try #require(appended == text)
        }
        // The pieces reached every coding: repeated details, the device's byte, the dictionary's bytes.
        #expect(seen.backReferences > 500 && seen.deviceBytes > 100 && seen.dictionaryBytes > 5000, "\(seen)")
    }

    @Test("A byte below 0x20 in a detail is escaped, so a line stays one line and decodes to the same JSON value")
    func controlBytes() throws {
        let line = TraceText.Line(atMilliseconds: 1, kind: "modified", detail: "{\"a\":\"x\ny\u{1}\"}")
        let text = TraceText.encode([line], acceptedAt: 0, device: nil)
        #expect(text.utf8.filter { $0 == 0x0A }.count == 1)
        let decoded = try #require(TraceText.lines(text, acceptedAt: 0, device: nil)?.first?.detail)
        #expect(decoded == #"{"a":"x\u000ay\u0001"}"#)
    }

    @Test("Lines of schema v4 are still read, alone or before compact ones")
    func version4() throws {
        let old = [
            TraceText.Line(atMilliseconds: 1_700_000_000_042, kind: "accepted", detail: nil),
            TraceText.Line(atMilliseconds: -5, kind: "stored", detail: #"{"reason":"device-offline","expiresAt":9}"#),
        ]
        let text = old.map(TraceText.version4Line).joined()
        #expect(text.hasPrefix(#"{"at":1700000000042,"kind":"accepted"}"# + "\n"))
        #expect(TraceText.lines(text, acceptedAt: 99, device: nil) == old)
        let next = TraceText.Line(atMilliseconds: 100, kind: "expired", detail: old[1].detail)
        let both = try #require(TraceText.appending(next, to: text, acceptedAt: 99, device: nil))
        #expect(both.hasSuffix("E1 ^\n"))
        #expect(TraceText.lines(both, acceptedAt: 99, device: nil) == old + [next])
    }

    @Test(
        "A line not in either form is refused, not guessed",
        arguments: [
            "accepted\n",
            "Q5\n",
            "A\n",
            "A1x\n",
            "A1 \n",
            "A1 ^\n",
            "A1 {\"a\":1\n",
            "A1 \u{1F}\n",
            "Bad:1\n",
            "sent:99999999999999999999\n",
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
        #expect(TraceText.lines(text, acceptedAt: 0, device: nil) == nil)
    }

    @Test("Kinds are 1 to 64 of a-z and '-'; a detail must open as an object; the tables are one-to-one")
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
        #expect(Set(TraceText.kindCodes.map(\.code)).count == TraceText.kindCodes.count)
        #expect(Set(TraceText.kindCodes.map(\.kind)).count == TraceText.kindCodes.count)
        #expect(TraceText.kindCodes.allSatisfy { $0.code >= UInt8(ascii: "A") && $0.code <= UInt8(ascii: "Z") && TraceText.isValidKind($0.kind) })
        #expect(Set(TraceText.dictionary.map(\.byte)).count == TraceText.dictionary.count)
        #expect(
            TraceText.dictionary.allSatisfy {
                $0.byte >= 1 && $0.byte < 0x20 && $0.byte != 0x0A && $0.byte != TraceText.deviceByte && $0.text.utf8.count >= 2
            }
        )
    }

    @Test("A history that moves gets its own accepted detail written out; other lines are kept as they are")
    func materialized() throws {
        let text = TraceText.encode(
            [
                TraceText.Line(atMilliseconds: 1, kind: "accepted", detail: nil),
                TraceText.Line(atMilliseconds: 2, kind: "accepted", detail: #"{"seq":0}"#),
                TraceText.Line(atMilliseconds: 3, kind: "stored", detail: #"{"reason":"device-offline"}"#),
            ],
            acceptedAt: 1,
            device: nil
        )
        let moved = try #require(TraceText.materialized(text, acceptedAt: 1, device: nil, sequence: 41, token: "ab", topic: "com.\"x\"\u{7}"))
        #expect(
            moved.map(\.detail) == [
                #"{"seq":41,"token":"ab","topic":"com.\"x\"\u0007"}"#, #"{"seq":0}"#, #"{"reason":"device-offline"}"#,
            ]
        )
        #expect(moved.map(\.atMilliseconds) == [1, 2, 3])
        #expect(TraceText.materialized("garbage\n", acceptedAt: 0, device: nil, sequence: 1, token: "", topic: "") == nil)
    }
}

extension TraceText {
    /// `trace` with `line` appended by the delivery journal's byte code (``append(kind:atMilliseconds:detail:to:acceptedAt:device:into:)``,
    /// what `herald_trace_append` runs); `nil` when `trace` is not a trace.
    static func appending(_ line: Line, to trace: String, acceptedAt: Int64, device: String?) -> String? {
        func withBuffer<R>(_ text: String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            guard let text else { return body(nil) }
            return Array(text.utf8).withUnsafeBufferPointer { body($0) }
        }
        var out: [UInt8] = []
        let appended = Array(trace.utf8).withUnsafeBufferPointer { trace in
            Array(line.kind.utf8).withUnsafeBufferPointer { kind in
                withBuffer(line.detail) { detail in
                    withBuffer(device) { device in
                        append(
                            kind: kind,
                            atMilliseconds: line.atMilliseconds,
                            detail: detail,
                            to: trace,
                            acceptedAt: acceptedAt,
                            device: device,
                            into: &out
                        )
                    }
                }
            }
        }
        return appended ? String(decoding: out, as: UTF8.self) : nil
    }
}
