import Foundation
import GRDB
import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("herald_trace_append, the SQL function the delivery journal writes traces with", .tier(.unit))
struct TraceAppendFunctionTests {
    private static let sql = "SELECT herald_trace_append(?, ?, ?, ?, json(?), ?)"

    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try SQLiteStore.registerTraceAppend($0) }
        return queue
    }

    @Test("Line after line, it writes what TraceText writes: codes, back-references, the device's byte, minified details")
    func matchesTraceText() throws {
        let queue = try database()
        var generator = SplitMix64(seed: 7)
        let device = "08cc02d7-bb2c-4f30-a943-27140025e057"
        let details = [
            #"{"attempt":1,"session":"session-3","device":""# + device + #""}"#, #"{"reason":"device-offline","expiresAt":9}"#,
            #"{"text":"é \"^\" \u0007","nested":{"x":[1,{}],"y":null}}"#, #"{ "spaced" : true }"#,
        ]
        let kinds = TraceText.kindCodes.map(\.kind) + ["custom-kind", "z"]
        var seen = (backReferences: 0, deviceBytes: 0)
        try queue.read { db in
            for _ in 0..<300 {
                let acceptedAt = Int64.random(in: -1_000_000...Int64.max, using: &generator)
                let rowDevice: String? = Bool.random(using: &generator) ? device : nil
                var viaSQL = TraceText.acceptedLine
                var lines = [TraceText.Line(atMilliseconds: acceptedAt, kind: "accepted", detail: nil)]
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let detail = Int.random(in: 0..<3, using: &generator) == 0 ? nil : details.randomElement(using: &generator)
                    let at = acceptedAt &+ Int64.random(in: -5...50_000, using: &generator)
                    let kind = kinds.randomElement(using: &generator)!
                    viaSQL = try #require(try String.fetchOne(db, sql: Self.sql, arguments: [viaSQL, acceptedAt, at, kind, detail, rowDevice]))
                    // json() minifies the detail before the function sees it; the trace reads the minified text back.
                    let minified = try detail.map { try #require(try String.fetchOne(db, sql: "SELECT json(?)", arguments: [$0])) }
                    lines.append(TraceText.Line(atMilliseconds: at, kind: kind, detail: minified))
                }
                try #require(viaSQL == TraceText.encode(lines, acceptedAt: acceptedAt, device: rowDevice), "\(lines)")
                try #require(TraceText.lines(viaSQL, acceptedAt: acceptedAt, device: rowDevice) == lines)
                seen.backReferences += viaSQL.components(separatedBy: " ^\n").count - 1
                seen.deviceBytes += viaSQL.utf8.filter { $0 == TraceText.deviceByte }.count
            }
        }
        #expect(seen.backReferences > 20 && seen.deviceBytes > 20, "\(seen)")
    }

    @Test(
        "A missing or mistyped argument, or a trace not in its form, fails the statement with its reason",
        arguments: [
            ([nil, 0, 1, "sent", nil, nil], "trace, accepted_at, time and kind are required"),
            (["A0\n", "0", 1, "sent", nil, nil], "trace, accepted_at, time and kind are required"),
            (["A0\n", 0, nil, "sent", nil, nil], "trace, accepted_at, time and kind are required"),
            (["A0\n", 0, 1.5, "sent", nil, nil], "trace, accepted_at, time and kind are required"),
            (["A0\n", 0, 1, nil, nil, nil], "trace, accepted_at, time and kind are required"),
            ([Data("A0\n".utf8), 0, 1, "sent", nil, nil], "trace, accepted_at, time and kind are required"),
            (["garbage\n", 0, 1, "sent", nil, nil], "the trace is not in its form"),
            (["A0 \u{18}\n", 0, 1, "sent", #"{"a":1}"#, nil], "the trace is not in its form"),
        ] as [(StatementArguments, String)]
    )
    func refused(arguments: StatementArguments, reason: String) throws {
        let queue = try database()
        try queue.read { db in
            let error = #expect(throws: DatabaseError.self) { try String.fetchOne(db, sql: Self.sql, arguments: arguments) }
            #expect(error?.message == "herald_trace_append: " + reason, "\(arguments)")
        }
    }

    @Test("A time given as a whole float is a time; an empty trace takes its first line")
    func liberalTimes() throws {
        let queue = try database()
        let (floatTimes, empty) = try queue.read { db in
            (
                try String.fetchOne(db, sql: Self.sql, arguments: ["A0\n", 10.0, 15.0, "sent", nil, nil]),
                try String.fetchOne(db, sql: Self.sql, arguments: ["", 10, 7, "stored", nil, nil])
            )
        }
        #expect(floatTimes == "A0\nS5\n")
        #expect(empty == "T-3\n")
    }
}
