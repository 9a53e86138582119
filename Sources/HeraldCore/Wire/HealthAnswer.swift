import Foundation

/// The web port's answer to `GET /readyz` or `/healthz` as `herald health` reads it: the status and the start of the
/// body of an HTTP/1.1 answer (docs/console.md, "Health").
///
/// Pure, so that the reading of what a peer sent is fuzzed (`FuzzHealthAnswer`, docs/fuzzing.md); the CLI's probe
/// does the socket work.
public struct HealthAnswer: Sendable, Hashable {
    /// The status code, 100 to 599.
    public var status: Int
    /// The body, trimmed, at most ``maximumBodyCharacters`` characters (the health answers are a few dozen).
    public var body: String

    /// The most bytes of an answer a reader should take; `/readyz` answers about 100.
    public static let maximumBytes = 16_384
    /// The most characters of the body kept.
    public static let maximumBodyCharacters = 512

    /// An answer with this status and body.
    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    /// Reads an HTTP/1.1 answer (headers skipped: the answers are short and `connection: close`); `nil` when its
    /// status line is not HTTP/1.x with a status of 100 to 599.
    public init?(bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" && $0 != "\n" }
        let fields = statusLine.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let status = Int(fields[1]), (100...599).contains(status) else {
            return nil
        }
        var body = ""
        if let end = text.range(of: "\r\n\r\n") {
            body = String(text[end.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        self.init(status: status, body: String(body.prefix(Self.maximumBodyCharacters)))
    }
}
