import HeraldCore

/// The text form of a notification's trace, kept in the `trace` column of its row (schema v4; compact since v10).
///
/// One event per line, oldest first, each line ending in a line feed. Since schema v10 a line is
///
///     line   = head [" " detail] LF
///     head   = code delta | kind ":" delta
///     delta  = ["-"] digits            ; milliseconds after the row's `accepted_at` (wrapping arithmetic)
///     detail = "^"                     ; the same detail as the line before
///            | coded JSON object       ; minified, with the substrings of ``dictionary`` written as one byte, and
///                                      ; the device id of the row's token as the byte 0x18 (``deviceByte``)
///
/// where `code` is one uppercase letter of ``kindCodes`` for the common kinds (a kind is lowercase, so the two never
/// meet). A minified JSON text never holds a byte below 0x20 (they are escaped inside strings; there is no
/// whitespace), so those bytes, line feed excepted, are free to stand for the dictionary's substrings. Both tables
/// are frozen: stored traces depend on them; a new entry may only take a free byte or letter.
///
/// Why: a delivered notification's three events took ~305 bytes as JSON lines with names and absolute
/// times, as much as its payload and more (bench/storage, issue 21). Its `sent` and `acknowledged` events carry the
/// same detail (attempt, session, device), so the second is one byte; the device is the one the token belongs to,
/// one byte; times relative to acceptance are a digit or three; the common keys are one byte each. The three events
/// now take ~20 bytes.
///
/// A line of schema v4 (`{"at":<ms>,"kind":"<kind>"[,"detail":<object>]}`) is still read: the v10 migration
/// rewrites every trace, but a reader never guesses.
///
/// The row's own `accepted` line is written without a detail: the reader fills it from the row (`seq`, `token`,
/// `topic`), because the sequence number is not known before the insert. A line moved with an `apns-id`'s history
/// to a newer row keeps the detail it had (the store writes it out when it moves it).
package enum TraceText {
    /// One decoded line.
    struct Line: Equatable {
        var atMilliseconds: Int64
        var kind: String
        /// The detail's JSON text, or `nil`.
        var detail: String?
    }

    /// The kinds written as one letter. Frozen (see the type's comment).
    static let kindCodes: [(code: UInt8, kind: String)] = [
        (UInt8(ascii: "A"), "accepted"), (UInt8(ascii: "T"), "stored"), (UInt8(ascii: "R"), "replaced"),
        (UInt8(ascii: "E"), "expired"), (UInt8(ascii: "L"), "delivered"), (UInt8(ascii: "S"), "sent"),
        (UInt8(ascii: "K"), "acknowledged"), (UInt8(ascii: "X"), "discarded"), (UInt8(ascii: "F"), "fault"),
        (UInt8(ascii: "D"), "displayed"), (UInt8(ascii: "M"), "modified"), (UInt8(ascii: "P"), "dropped"),
        (UInt8(ascii: "B"), "background"), (UInt8(ascii: "C"), "action"), (UInt8(ascii: "I"), "dismissed"),
        (UInt8(ascii: "V"), "removed"), (UInt8(ascii: "W"), "expanded"), (UInt8(ascii: "U"), "media"),
    ]

    /// The substrings of details written as one byte (0x01–0x17, line feed excepted). Frozen (see the type's comment).
    static let dictionary: [(byte: UInt8, text: String)] = [
        (0x01, #"{"attempt":"#), (0x02, #","session":"session-"#), (0x03, #"","device":""#),
        (0x04, #"{"session":"session-"#), (0x05, #"{"reason":""#), (0x06, #","reason":""#), (0x07, #","heldMs":"#),
        (0x08, #","expiresAt":"#), (0x09, #","late":true"#), (0x0B, #"{"by":""#), (0x0C, #""notificationIdentifier":""#),
        (0x0D, #""apnsID":""#), (0x0E, #"",""#), (0x0F, #"":""#), (0x10, #"":"#), (0x11, #",""#), (0x12, #""}"#),
        (0x13, "true"), (0x14, "false"), (0x15, "null"), (0x16, #""detail":{"#), (0x17, #"{"reason":"#),
    ]

    /// The byte that stands for the device id of the row's token (`token_ref.device_id`, schema v10) in a detail.
    static let deviceByte: UInt8 = 0x18

    /// The line of the row's own `accepted` event at its acceptance, detail left to the reader.
    package static let acceptedLine = "A0\n"

    /// Whether `kind` may be stored: 1 to 64 of `a`–`z` and `-`.
    package static func isValidKind(_ kind: String) -> Bool {
        let bytes = kind.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// Whether `detail` starts as a JSON object does (`json()` checks the rest when it is written).
    package static func looksLikeObject(_ detail: String) -> Bool {
        detail.utf8.first { !isWhitespace($0) } == UInt8(ascii: "{")
    }

    /// The detail of a row's own `accepted` event: `{"seq":…,"token":…,"topic":…}`.
    package static func acceptedDetail(sequence: Int64, token: String, topic: String) -> String {
        var text = #"{"seq":"# + String(sequence) + #","token":"#
        JSONString.append(token, to: &text)
        text += #","topic":"#
        JSONString.append(topic, to: &text)
        return text + "}"
    }

    // MARK: Writing

    /// `lines` as a whole trace of a row accepted at `acceptedAt` whose token belongs to `device`.
    static func encode(_ lines: [Line], acceptedAt: Int64, device: String?) -> String {
        var out: [UInt8] = []
        withOptionalBuffer(device.map { Array($0.utf8) }) { device in
            let device = validDevice(device)
            var previous: [UInt8]?
            for line in lines {
                let detail = line.detail.map { Array($0.utf8) }
                Array(line.kind.utf8).withUnsafeBufferPointer { kind in
                    withOptionalBuffer(detail) { detail in
                        withOptionalBuffer(previous) { previous in
                            appendLine(
                                kind: kind,
                                atMilliseconds: line.atMilliseconds,
                                detail: detail,
                                previousDetail: previous,
                                acceptedAt: acceptedAt,
                                device: device,
                                to: &out
                            )
                        }
                    }
                }
                previous = detail
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Puts in `out` the bytes of `trace` with one line appended: `kind` at `atMilliseconds`, with `detail` (minified
    /// JSON) or none. `false` when `trace` is not a trace (its last detail is needed for a back-reference); `out` is
    /// then left as it was.
    ///
    /// The delivery journal's appends go through this function, as the SQL function `herald_trace_append`
    /// (``SQLiteStore``), which hands it SQLite's own bytes of its arguments: nothing is decoded into a `String`, and
    /// only the last line's detail is expanded (to compare it with `detail`).
    static func append(
        kind: UnsafeBufferPointer<UInt8>,
        atMilliseconds: Int64,
        detail: UnsafeBufferPointer<UInt8>?,
        to trace: UnsafeBufferPointer<UInt8>,
        acceptedAt: Int64,
        device: UnsafeBufferPointer<UInt8>?,
        into out: inout [UInt8]
    ) -> Bool {
        let device = validDevice(device)
        guard let previous = lastDetail(trace, acceptedAt: acceptedAt, device: device) else { return false }
        out.reserveCapacity(out.count + trace.count + kind.count + (detail?.count ?? 0) + 24)
        out.append(contentsOf: trace)
        withOptionalBuffer(previous) { previous in
            appendLine(
                kind: kind,
                atMilliseconds: atMilliseconds,
                detail: detail,
                previousDetail: previous,
                acceptedAt: acceptedAt,
                device: device,
                to: &out
            )
        }
        return true
    }

    /// The device id's bytes when it can stand for itself: 4 bytes or more, none of them a control byte or a quote
    /// (a device id is a UUID; the rule keeps any other from matching inside an escape).
    private static func validDevice(_ device: UnsafeBufferPointer<UInt8>?) -> UnsafeBufferPointer<UInt8>? {
        guard let device, device.count >= 4,
            device.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return device
    }

    private static func appendLine(
        kind: UnsafeBufferPointer<UInt8>,
        atMilliseconds: Int64,
        detail: UnsafeBufferPointer<UInt8>?,
        previousDetail: UnsafeBufferPointer<UInt8>?,
        acceptedAt: Int64,
        device: UnsafeBufferPointer<UInt8>?,
        to bytes: inout [UInt8]
    ) {
        if let code = kindByteCodes.first(where: { $0.kind.elementsEqual(kind) })?.code {
            bytes.append(code)
        } else {
            bytes.append(contentsOf: kind)
            bytes.append(UInt8(ascii: ":"))
        }
        appendDecimal(atMilliseconds &- acceptedAt, to: &bytes)
        if let detail {
            bytes.append(UInt8(ascii: " "))
            if let previousDetail, detail.elementsEqual(previousDetail) {
                bytes.append(UInt8(ascii: "^"))
            } else {
                appendCoded(detail, device: device, to: &bytes)
            }
        }
        bytes.append(0x0A)
    }

    /// `value` in decimal, with a minus sign when negative.
    private static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }

    /// The device id as ``deviceByte`` and the dictionary's substrings as their bytes, longest first at each place; a
    /// byte below 0x20 (which minified JSON never holds) is escaped as `\u00XX`, so the line stays one line and
    /// decodes to valid JSON.
    private static func appendCoded(_ source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?, to bytes: inout [UInt8]) {
        var index = 0
        next: while index < source.count {
            let byte = source[index]
            if let device, byte == device[0], source.count - index >= device.count,
                UnsafeBufferPointer(rebasing: source[index..<(index + device.count)]).elementsEqual(device)
            {
                bytes.append(deviceByte)
                index += device.count
                continue
            }
            if byte < 0x80, let candidates = codedByFirstByte[Int(byte)] {
                for candidate in candidates where source.count - index >= candidate.text.count {
                    if source[index..<(index + candidate.text.count)].elementsEqual(candidate.text) {
                        bytes.append(candidate.byte)
                        index += candidate.text.count
                        continue next
                    }
                }
            }
            if byte < 0x20 {
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            } else {
                bytes.append(byte)
            }
            index += 1
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// ``kindCodes`` with each kind's bytes.
    private static let kindByteCodes: [(code: UInt8, kind: [UInt8])] = kindCodes.map { ($0.code, Array($0.kind.utf8)) }

    /// Calls `body` with the array's buffer, or with `nil`.
    private static func withOptionalBuffer<R>(_ array: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard let array else { return body(nil) }
        return array.withUnsafeBufferPointer { body($0) }
    }

    /// The dictionary by the first byte of its substrings (all ASCII), longest first; `nil` where none starts.
    private static let codedByFirstByte: [[(byte: UInt8, text: [UInt8])]?] = {
        var table = [[(byte: UInt8, text: [UInt8])]?](repeating: nil, count: 0x80)
        for entry in dictionary {
            let text = Array(entry.text.utf8)
            table[Int(text[0])] = (table[Int(text[0])] ?? []) + [(entry.byte, text)]
        }
        return table.map { $0?.sorted { $0.text.count > $1.text.count } }
    }()

    /// The expansion of each dictionary byte.
    private static let expansions: [[UInt8]?] = {
        var table = [[UInt8]?](repeating: nil, count: 0x20)
        for entry in dictionary { table[Int(entry.byte)] = Array(entry.text.utf8) }
        return table
    }()

    /// A line of schema v4, for the v4 migration (frozen with it): `{"at":…,"kind":…[,"detail":…]}` and a line feed.
    static func version4Line(_ line: Line) -> String {
        var text = #"{"at":"# + String(line.atMilliseconds) + #","kind":""# + line.kind + "\""
        if let detail = line.detail {
            text += #","detail":"# + detail
        }
        return text + "}\n"
    }

    // MARK: Reading

    /// Decodes a trace of a row accepted at `acceptedAt` whose token belongs to `device`; `nil` when a line is in
    /// neither form.
    static func lines(_ text: String, acceptedAt: Int64, device: String?) -> [Line]? {
        var text = text
        let deviceArray = device.map { Array($0.utf8) }
        return text.withUTF8 { bytes in
            withOptionalBuffer(deviceArray) { device -> [Line]? in
                let device = validDevice(device)
                var lines: [Line] = []
                var previous: String?
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                    if end > start {
                        let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
                        guard let line = decode(raw, acceptedAt: acceptedAt, device: device, previousDetail: previous) else {
                            return nil
                        }
                        lines.append(line)
                        previous = line.detail
                    }
                    start = end + 1
                }
                return lines
            }
        }
    }

    /// The lines with detail-less `accepted` lines given the row's detail: the form a history keeps when it moves
    /// to a newer row.
    static func materialized(
        _ text: String,
        acceptedAt: Int64,
        device: String?,
        sequence: Int64,
        token: String,
        topic: String
    ) -> [Line]? {
        guard var lines = lines(text, acceptedAt: acceptedAt, device: device) else { return nil }
        for index in lines.indices where lines[index].kind == TraceEventKind.accepted.rawValue && lines[index].detail == nil {
            lines[index].detail = acceptedDetail(sequence: sequence, token: token, topic: topic)
        }
        return lines
    }

    /// The detail of the last line (`.some(nil)`: it has none, or there is no line); `nil`: not a trace.
    ///
    /// Reads back from the end only as far as back-references need, and decodes that line's detail only.
    private static func lastDetail(_ bytes: UnsafeBufferPointer<UInt8>, acceptedAt: Int64, device: UnsafeBufferPointer<UInt8>?) -> [UInt8]?? {
        var end = bytes.count
        while true {
            while end > 0, bytes[end - 1] == 0x0A { end -= 1 }
            guard end > 0 else { return .some(nil) }
            var start = end
            while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
            // A back-reference: the line before holds (or refers to) the detail.
            if end - start >= 2, bytes[end - 1] == UInt8(ascii: "^"), bytes[end - 2] == UInt8(ascii: " ") {
                end = start
                continue
            }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if line.first == UInt8(ascii: "{") {
                guard let decoded = decodeVersion4(Array(line)) else { return nil }
                return .some(decoded.detail.map { Array($0.utf8) })
            }
            guard let head = head(line, acceptedAt: acceptedAt) else { return nil }
            switch head.detail {
            case .none: return .some(nil)
            // Not reached: a line ending in a back-reference was passed over above.
            case .backReference: return nil
            case .coded(let range):
                guard let detail = expand(UnsafeBufferPointer(rebasing: line[range]), device: device) else { return nil }
                return .some(detail)
            }
        }
    }

    private static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>,
        acceptedAt: Int64,
        device: UnsafeBufferPointer<UInt8>?,
        previousDetail: String?
    ) -> Line? {
        if bytes.first == UInt8(ascii: "{") { return decodeVersion4(Array(bytes)) }
        guard let head = head(bytes, acceptedAt: acceptedAt) else { return nil }
        let kind: String
        switch head.kind {
        case .known(let known): kind = known
        case .named(let end): kind = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        }
        switch head.detail {
        case .none:
            return Line(atMilliseconds: head.at, kind: kind, detail: nil)
        case .backReference:
            guard let previousDetail else { return nil }
            return Line(atMilliseconds: head.at, kind: kind, detail: previousDetail)
        case .coded(let range):
            guard let detail = expand(UnsafeBufferPointer(rebasing: bytes[range]), device: device) else { return nil }
            return Line(atMilliseconds: head.at, kind: kind, detail: String(decoding: detail, as: UTF8.self))
        }
    }

    /// A line of schema v10 taken apart: its kind, time and detail.
    private struct Head {
        enum Kind {
            /// Written as its letter.
            case known(String)
            /// Written out: the bytes before the colon, `0..<end`.
            case named(end: Int)
        }
        enum Detail {
            case none
            case backReference
            case coded(Range<Int>)
        }
        var kind: Kind
        var at: Int64
        var detail: Detail
    }

    /// The parts of a line of schema v10; `nil` when it is not one. The detail is located, not decoded.
    private static func head(_ bytes: UnsafeBufferPointer<UInt8>, acceptedAt: Int64) -> Head? {
        guard let first = bytes.first else { return nil }
        var index = 0
        let kind: Head.Kind
        if first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") {
            guard let known = kindCodes.first(where: { $0.code == first })?.kind else { return nil }
            kind = .known(known)
            index = 1
        } else {
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") { index += 1 }
            guard index < bytes.count, isValidKind(UnsafeBufferPointer(rebasing: bytes[0..<index])) else { return nil }
            kind = .named(end: index)
            index += 1
        }
        guard let (delta, afterDelta) = integer(bytes, from: index) else { return nil }
        index = afterDelta
        let detail: Head.Detail
        if index == bytes.count {
            detail = .none
        } else {
            guard bytes[index] == UInt8(ascii: " "), index + 1 < bytes.count else { return nil }
            index += 1
            detail = bytes.count - index == 1 && bytes[index] == UInt8(ascii: "^") ? .backReference : .coded(index..<bytes.count)
        }
        return Head(kind: kind, at: acceptedAt &+ delta, detail: detail)
    }

    /// A coded detail written out: the device byte as `device`, each dictionary byte as its substring; `nil` when
    /// it names the device and none is known, holds a byte the dictionary does not have, or is not an object.
    private static func expand(_ coded: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?) -> [UInt8]? {
        var detail: [UInt8] = []
        detail.reserveCapacity(coded.count * 2)
        for byte in coded {
            if byte == deviceByte {
                guard let device else { return nil }
                detail.append(contentsOf: device)
            } else if byte < 0x20 {
                guard let expansion = expansions[Int(byte)] else { return nil }
                detail += expansion
            } else {
                detail.append(byte)
            }
        }
        guard detail.first == UInt8(ascii: "{"), detail.last == UInt8(ascii: "}") else { return nil }
        return detail
    }

    /// Whether `kind` may be stored (``isValidKind(_:)``).
    private static func isValidKind(_ kind: UnsafeBufferPointer<UInt8>) -> Bool {
        (1...64).contains(kind.count) && kind.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// An optionally negative decimal integer at `start`: its value and the index after it; `nil` on no digits or
    /// overflow.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int64, Int)? {
        var index = start
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        // Accumulated as a negative number, so that Int64.min (a wrapped delta) reads too.
        var value: Int64 = 0
        let digitsStart = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.subtractingReportingOverflow(Int64(bytes[index] - 0x30))
            guard !overflow, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        guard index > digitsStart else { return nil }
        if negative { return (value, index) }
        guard value != Int64.min else { return nil }
        return (-value, index)
    }

    /// A line of schema v4: `{"at":<ms>,"kind":"<kind>"[,"detail":<object>]}` with an absolute time.
    private static func decodeVersion4(_ bytes: [UInt8]) -> Line? {
        let head = Array(#"{"at":"#.utf8)
        guard bytes.count > head.count + 1, bytes.starts(with: head), bytes.last == UInt8(ascii: "}") else { return nil }
        guard let (at, afterAt) = bytes.withUnsafeBufferPointer({ integer($0, from: head.count) }) else { return nil }
        var index = afterAt
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
            return Line(atMilliseconds: at, kind: kind, detail: nil)
        }
        let detailHead = Array(#","detail":"#.utf8)
        guard bytes[index..<end].starts(with: detailHead), index + detailHead.count < end else { return nil }
        let detail = String(decoding: bytes[(index + detailHead.count)..<end], as: UTF8.self)
        return Line(atMilliseconds: at, kind: kind, detail: detail)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
