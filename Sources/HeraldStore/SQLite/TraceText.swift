import HeraldCore

/// The text form of a notification's trace, kept in the `trace` column of its row (schema v4).
///
/// One event per line, oldest first, each line a compact JSON object ending in a line feed:
/// `{"at":<ms>,"kind":"<kind>"}` or `{"at":<ms>,"kind":"<kind>","detail":<object>}`. A detail is kept minified
/// (SQLite's `json()` writes it), so it never holds a line feed.
///
/// Why a column and not a row per event: in the gateway benchmark every notification had five rows written for
/// it (the notification, its `accepted` and `stored` events, the `replaced` event and state of the one before),
/// and a row of `trace_event` cost as much as the notification's own (a table row, its index entry, the
/// AUTOINCREMENT counter and the JSON check). An event is now an append to the row the journal updates anyway
/// (bench/gateway/results-2026-11-23.md).
///
/// The row's own `accepted` line is written without a detail: the reader fills it from the row (`seq`, `token`,
/// `topic`), because the sequence number is not known before the insert. A line moved with an `apns-id`'s history
/// to a newer row keeps the detail it had (the store writes it out when it moves it).
enum TraceText {
    /// One decoded line.
    struct Line: Equatable {
        var atMilliseconds: Int64
        var kind: String
        /// The detail's JSON text, or `nil`.
        var detail: String?
    }

    /// The line of the row's own `accepted` event, detail left to the reader.
    static func acceptedLine(at milliseconds: Int64) -> String {
        #"{"at":"# + String(milliseconds) + #","kind":"accepted"}"# + "\n"
    }

    /// The start of a line, up to (not including) the detail and the closing brace; SQL appends the rest.
    static func linePrefix(at milliseconds: Int64, kind: String) -> String {
        #"{"at":"# + String(milliseconds) + #","kind":""# + kind + "\""
    }

    /// A whole line; `detail` must be minified JSON (no line feed).
    static func line(_ line: Line) -> String {
        var text = linePrefix(at: line.atMilliseconds, kind: line.kind)
        if let detail = line.detail {
            text += #","detail":"# + detail
        }
        return text + "}\n"
    }

    /// Whether `kind` may be stored: 1 to 64 of `a`–`z` and `-`.
    static func isValidKind(_ kind: String) -> Bool {
        let bytes = kind.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// Whether `detail` starts as a JSON object does (`json()` checks the rest when it is written).
    static func looksLikeObject(_ detail: String) -> Bool {
        detail.utf8.first { !isWhitespace($0) } == UInt8(ascii: "{")
    }

    /// The detail of a row's own `accepted` event: `{"seq":…,"token":…,"topic":…}`.
    static func acceptedDetail(sequence: Int64, token: String, topic: String) -> String {
        var text = #"{"seq":"# + String(sequence) + #","token":"#
        JSONString.append(token, to: &text)
        text += #","topic":"#
        JSONString.append(topic, to: &text)
        return text + "}"
    }

    /// Decodes a trace; `nil` when a line is not in the form above.
    static func lines(_ text: String) -> [Line]? {
        var lines: [Line] = []
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let line = decode(raw) else { return nil }
            lines.append(line)
        }
        return lines
    }

    /// The lines with detail-less `accepted` lines given the row's detail: the form a history keeps when it moves
    /// to a newer row.
    static func materialized(_ text: String, sequence: Int64, token: String, topic: String) -> String? {
        guard let lines = lines(text) else { return nil }
        var result = ""
        for var line in lines {
            if line.kind == "accepted", line.detail == nil {
                line.detail = acceptedDetail(sequence: sequence, token: token, topic: topic)
            }
            result += Self.line(line)
        }
        return result
    }

    private static func decode(_ line: Substring.UTF8View.SubSequence) -> Line? {
        let bytes = Array(line)
        let head = Array(#"{"at":"#.utf8)
        guard bytes.count > head.count + 1, bytes.starts(with: head), bytes.last == UInt8(ascii: "}") else { return nil }
        var index = head.count
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var at: Int64 = 0
        let digitsStart = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let (product, overflow) = at.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            at = product + Int64(bytes[index] - 0x30)
            index += 1
        }
        guard index > digitsStart else { return nil }
        let kindHead = Array(#","kind":""#.utf8)
        guard bytes[index...].starts(with: kindHead) else { return nil }
        index += kindHead.count
        let kindStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
        guard index < bytes.count else { return nil }
        let kind = String(decoding: bytes[kindStart..<index], as: UTF8.self)
        index += 1
        let end = bytes.count - 1
        if index == end {
            return Line(atMilliseconds: negative ? -at : at, kind: kind, detail: nil)
        }
        let detailHead = Array(#","detail":"#.utf8)
        guard bytes[index..<end].starts(with: detailHead), index + detailHead.count < end else { return nil }
        let detail = String(decoding: bytes[(index + detailHead.count)..<end], as: UTF8.self)
        return Line(atMilliseconds: negative ? -at : at, kind: kind, detail: detail)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
