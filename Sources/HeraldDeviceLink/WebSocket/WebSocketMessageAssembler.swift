import NIOCore
import NIOWebSocket

/// Turns WebSocket frames into messages: joins fragments, enforces the message size limit, and names the
/// control frames. Pure; the client's and the server's channel handlers feed it.
///
/// A message over the limit is not an error of the connection: its bytes are dropped as they arrive and
/// ``Output/tooLarge(_:)`` reports it once, so the peer gets an error frame and the link stays up.
public struct WebSocketMessageAssembler {
    /// What a frame amounted to.
    public enum Output: Equatable {
        /// A complete text message.
        case text(ByteBuffer)
        /// A complete binary message (the device link uses text only).
        case binary
        /// A message over the limit was dropped; the size seen when it crossed it.
        case tooLarge(Int)
        /// A ping to answer with a pong carrying the same data.
        case ping(ByteBuffer)
        /// The answer to a ping.
        case pong
        /// The peer is closing, with its status code and reason when it sent them.
        case close(WebSocketErrorCode?, String?)
        /// The peer broke RFC 6455 (e.g. a continuation frame with no message to continue).
        case protocolError(String)
    }

    private enum Message {
        case none
        case text(ByteBuffer)
        case binary
        case discarding(size: Int, isText: Bool)
    }

    /// The largest message accepted, in bytes.
    public let maximumMessageSize: Int
    /// The most frames one message may come in; one more is a ``Output/protocolError(_:)``.
    ///
    /// Why: empty continuation frames cost the reader work and the size limit never trips on them (the
    /// CONTINUATION-flood pattern of HTTP/2, in WebSocket form).
    public let maximumFragmentCount: Int
    private var message = Message.none
    private var fragments = 0

    /// An assembler that accepts messages of up to `maximumMessageSize` bytes in up to `maximumFragmentCount` frames.
    public init(maximumMessageSize: Int, maximumFragmentCount: Int = 64) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumFragmentCount = max(1, maximumFragmentCount)
    }

    /// Takes one frame; returns what it completes, or `nil` while a fragmented message is incomplete.
    public mutating func receive(_ frame: WebSocketFrame) -> Output? {
        switch frame.opcode {
        case .text, .binary:
            guard case .none = message else { return .protocolError("a new message began before the previous one ended") }
            fragments = 1
            if frame.opcode == .text {
                message = .text(frame.unmaskedData)
            } else {
                message = .binary
            }
            return append(size: frame.length, data: nil, fin: frame.fin)
        case .continuation:
            if case .none = message { return .protocolError("a continuation frame without a message to continue") }
            fragments += 1
            if fragments > maximumFragmentCount {
                message = .none
                return .protocolError("a message in more than \(maximumFragmentCount) fragments")
            }
            return append(size: frame.length, data: frame, fin: frame.fin)
        case .ping:
            return .ping(frame.unmaskedData)
        case .pong:
            return .pong
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode()
            let reason = data.readString(length: data.readableBytes)
            return .close(code, reason.flatMap { $0.isEmpty ? nil : $0 })
        default:
            return .protocolError("unknown opcode")
        }
    }

    /// Adds a fragment (`data` is `nil` for the first, already stored) and completes the message on `fin`.
    private mutating func append(size: Int, data: WebSocketFrame?, fin: Bool) -> Output? {
        var crossed: Int?
        switch message {
        case .none:
            return nil
        case .text(var buffer):
            if let data {
                message = .none  // keep the buffer uniquely referenced while appending
                var bytes = data.unmaskedData
                buffer.writeBuffer(&bytes)
            }
            if buffer.readableBytes > maximumMessageSize {
                crossed = buffer.readableBytes
                message = .discarding(size: buffer.readableBytes, isText: true)
            } else {
                message = .text(buffer)
            }
        case .binary:
            break
        case .discarding(let total, let isText):
            message = .discarding(size: total + (data == nil ? 0 : size), isText: isText)
        }
        guard fin else { return crossed.map { .tooLarge($0) } }
        defer { message = .none }
        if let crossed { return .tooLarge(crossed) }
        switch message {
        case .text(let buffer): return .text(buffer)
        case .binary: return .binary
        case .discarding: return nil  // already reported when it crossed the limit
        case .none: return nil
        }
    }
}
