/// Splits the scope's standard output into lines, with a limit on a line's length.
///
/// Bytes come in as the pipe gives them; each complete line (without its `\n`) comes out once. A line longer than
/// ``maximumLineLength`` is not kept: its bytes are dropped up to the next `\n`, and it comes out as
/// ``Output/overlong(length:)`` with how long it was, so one bad line costs its event, not the host's memory.
public struct ServiceWorkerLineReader: Sendable {
    /// What the reader found in the bytes it was given.
    public enum Output: Sendable, Hashable {
        /// A complete line, without its `\n`.
        case line([UInt8])
        /// A line longer than the limit, dropped; `length` is how long it was (without its `\n`).
        case overlong(length: Int)
    }

    /// The longest line kept, in bytes.
    public let maximumLineLength: Int
    private var pending: [UInt8] = []
    /// The length of the overlong line being dropped, while one is.
    private var droppedLength: Int?

    /// A reader that keeps lines of at most `maximumLineLength` bytes.
    public init(maximumLineLength: Int) {
        precondition(maximumLineLength > 0, "a line limit is positive")
        self.maximumLineLength = maximumLineLength
    }

    /// The lines `bytes` completes, in order.
    public mutating func consume(_ bytes: some Collection<UInt8>) -> [Output] {
        var outputs: [Output] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let length = droppedLength {
                    outputs.append(.overlong(length: length))
                    droppedLength = nil
                } else {
                    outputs.append(.line(pending))
                }
                pending.removeAll(keepingCapacity: true)
            } else if let length = droppedLength {
                droppedLength = length + 1
            } else if pending.count == maximumLineLength {
                droppedLength = pending.count + 1
                pending.removeAll()
            } else {
                pending.append(byte)
            }
        }
        return outputs
    }

    /// What is left when the stream ends: a last line without `\n`, or the overlong one being dropped.
    public mutating func finish() -> Output? {
        defer {
            pending.removeAll()
            droppedLength = nil
        }
        if let length = droppedLength { return .overlong(length: length) }
        return pending.isEmpty ? nil : .line(pending)
    }
}
