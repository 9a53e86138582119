import NIOCore

/// One frame a client sent, checked for the layout rules of RFC 9113 §6; payloads are slices of the read buffer.
public enum HTTP2InboundFrame: Equatable, Sendable {
    /// DATA without its padding; `flowControlledLength` is the whole frame payload, padding included (§6.9.1).
    case data(streamID: UInt32, endStream: Bool, payload: ByteBuffer, flowControlledLength: Int)
    /// A whole header block: HEADERS and its CONTINUATION frames joined, padding and priority removed.
    case headers(streamID: UInt32, endStream: Bool, block: ByteBuffer)
    /// A whole header block whose frame broke a stream rule (a HEADERS depending on its own stream, §5.3.1): the
    /// block is still decoded, to keep the HPACK table in step, then the stream is reset with `errorCode`.
    case rejectedHeaders(streamID: UInt32, block: ByteBuffer, errorCode: HTTP2ErrorCode)
    /// RST_STREAM (§6.4).
    case rstStream(streamID: UInt32, errorCode: HTTP2ErrorCode)
    /// SETTINGS with its parameters in the order sent, checked against §6.5.2's value ranges.
    case settings([Setting])
    /// A SETTINGS acknowledgement (§6.5).
    case settingsAck
    /// PING (§6.7).
    case ping(ack: Bool, opaqueData: UInt64)
    /// GOAWAY (§6.8); `debugData` is a slice of the read buffer.
    case goAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: ByteBuffer)
    /// WINDOW_UPDATE with a non-zero increment (§6.9); stream 0 is the connection.
    case windowUpdate(streamID: UInt32, increment: Int)
    /// A stream error found while reading (a malformed or self-dependent PRIORITY, a zero stream WINDOW_UPDATE):
    /// RST_STREAM it.
    case streamError(streamID: UInt32, errorCode: HTTP2ErrorCode)
    /// PRIORITY (RFC 9113 deprecates the scheme) and frame types this server does not know (§5.5).
    case ignored

    /// One SETTINGS parameter as sent.
    public struct Setting: Equatable, Sendable {
        /// The parameter's identifier (§6.5.2: 0x1 header table size … 0x6 max header list size).
        public var parameter: UInt16
        /// Its value.
        public var value: UInt32

        /// A parameter and its value.
        public init(parameter: UInt16, value: UInt32) {
            self.parameter = parameter
            self.value = value
        }
    }
}

/// Why a connection must end: a GOAWAY with `code`, or just a close for a client that is not speaking HTTP/2.
public enum HTTP2ConnectionError: Error, Equatable, Sendable {
    /// A connection error (§5.4.1): GOAWAY with this code, then close.
    case goAway(HTTP2ErrorCode)
    /// A bound of docs/provider-api.md "Limits" tripped: GOAWAY ENHANCE_YOUR_CALM, and the limit in the log.
    case limitExceeded(ConnectionLimit)
    /// The first bytes are not the client preface (§3.4): close without a frame.
    case badPreface
}

/// The per-connection bounds whose breach ends a provider connection (`GatewayConfiguration.Limits`), with the value
/// in force.
public enum ConnectionLimit: Equatable, Sendable, CustomStringConvertible {
    /// A header block (HEADERS and its CONTINUATION frames) larger than this many octets.
    case headerBlockSize(Int)
    /// More than this many CONTINUATION frames in one header block.
    case continuationFrames(Int)
    /// More than this many control frames waiting while the client does not read (counted by the connection).
    case pendingControlFrames(Int)

    /// `maximumHeaderBlockSize=32000`: the setting's name and value, as the log gives it.
    public var description: String {
        switch self {
        case .headerBlockSize(let value): "maximumHeaderBlockSize=\(value)"
        case .continuationFrames(let value): "maximumContinuationFrames=\(value)"
        case .pendingControlFrames(let value): "maximumPendingControlFrames=\(value)"
        }
    }
}

/// Splits the client's bytes into frames, across reads, and enforces the frame-level rules.
///
/// Why a separate value: the layout rules (lengths, stream 0 or not, padding, CONTINUATION sequences) are pure and
/// tested on byte strings; the connection only sees frames that passed them.
public struct HTTP2FrameReader: Sendable {
    /// The client connection preface (§3.4).
    public static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// SETTINGS_MAX_FRAME_SIZE as we advertise it (the protocol's initial value, never changed).
    public static let maximumFrameSize = 16_384

    /// The largest header block accepted across HEADERS and CONTINUATION frames, checked as each frame arrives: a
    /// bound on what one stream can make the server buffer before decoding.
    public let maximumHeaderBlockSize: Int
    /// CONTINUATION frames accepted in one header block.
    public let maximumContinuationFrames: Int
    private var buffer: ByteBuffer?
    private var prefaceSeen = false
    private var settingsSeen = false
    private var continuation: PendingHeaderBlock?

    /// A header block waiting for its CONTINUATION frames.
    private struct PendingHeaderBlock {
        var streamID: UInt32
        var endStream: Bool
        var block: ByteBuffer
        var continuationFrames = 0
        var errorCode: HTTP2ErrorCode?
    }

    /// A reader for one connection; `expectingPreface: false` starts after the client preface (a peer's view, tests).
    public init(expectingPreface: Bool = true, maximumHeaderBlockSize: Int, maximumContinuationFrames: Int) {
        prefaceSeen = !expectingPreface
        self.maximumHeaderBlockSize = maximumHeaderBlockSize
        self.maximumContinuationFrames = maximumContinuationFrames
    }

    /// The storage the reader holds for bytes not yet made into frames (for tests of its bound).
    public var bufferedCapacity: Int { buffer?.capacity ?? 0 }

    /// Adds bytes read from the connection.
    ///
    /// What is left of the previous read (a frame not yet whole) moves to the front of the buffer first. Without it,
    /// the buffer kept every octet the connection had sent for as long as each read ended mid-frame, which a client
    /// sending large frames back to back keeps true: 999 header blocks of 60 KB grew the server by 33 MB (peak
    /// +91 MB) on one connection (bench/limits).
    public mutating func append(_ bytes: ByteBuffer) {
        if buffer == nil || buffer?.readableBytes == 0 {
            buffer = bytes
        } else {
            buffer?.discardReadBytes()
            buffer?.writeImmutableBuffer(bytes)
        }
    }

    /// The next whole frame, or nil until more bytes arrive.
    public mutating func next() throws(HTTP2ConnectionError) -> HTTP2InboundFrame? {
        guard var bytes = buffer else { return nil }
        buffer = nil
        defer { if bytes.readableBytes > 0 { buffer = bytes } }
        if !prefaceSeen {
            guard bytes.readableBytes >= Self.preface.count else { return nil }
            guard bytes.readBytes(length: Self.preface.count) == Self.preface else { throw .badPreface }
            prefaceSeen = true
        }
        while bytes.readableBytes >= 9 {
            let start = bytes.readerIndex
            guard let high = bytes.getInteger(at: start, as: UInt16.self), let low = bytes.getInteger(at: start + 2, as: UInt8.self),
                let type = bytes.getInteger(at: start + 3, as: UInt8.self), let flags = bytes.getInteger(at: start + 4, as: UInt8.self),
                let rawStreamID = bytes.getInteger(at: start + 5, as: UInt32.self)
            else { return nil }
            let length = Int(high) << 8 | Int(low)
            guard length <= Self.maximumFrameSize else { throw .goAway(.frameSizeError) }
            guard bytes.readableBytes >= 9 + length else { return nil }
            bytes.moveReaderIndex(forwardBy: 9)
            guard let payload = bytes.readSlice(length: length) else { return nil }
            let header = FrameHeader(type: type, flags: flags, streamID: rawStreamID & 0x7FFF_FFFF)
            if let frame = try parse(header, payload) { return frame }
        }
        return nil
    }

    private struct FrameHeader {
        var type: UInt8
        var flags: UInt8
        var streamID: UInt32

        func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
    }

    private static let endStream: UInt8 = 0x1
    private static let ack: UInt8 = 0x1
    private static let endHeaders: UInt8 = 0x4
    private static let padded: UInt8 = 0x8
    private static let priority: UInt8 = 0x20

    /// Checks one frame; nil when it is a CONTINUATION still waiting for the end of its header block.
    private mutating func parse(_ header: FrameHeader, _ payload: ByteBuffer) throws(HTTP2ConnectionError) -> HTTP2InboundFrame? {
        var payload = payload
        if var pending = continuation {
            // §6.10: nothing may come between a HEADERS without END_HEADERS and its CONTINUATION frames.
            guard header.type == 0x9, header.streamID == pending.streamID else { throw .goAway(.protocolError) }
            // §10.5: frames are counted as well as bytes, since empty CONTINUATION frames add work but no bytes.
            pending.continuationFrames += 1
            guard pending.continuationFrames <= maximumContinuationFrames else {
                throw .limitExceeded(.continuationFrames(maximumContinuationFrames))
            }
            guard pending.block.readableBytes + payload.readableBytes <= maximumHeaderBlockSize else {
                throw .limitExceeded(.headerBlockSize(maximumHeaderBlockSize))
            }
            continuation = nil
            pending.block.writeBuffer(&payload)
            guard header.has(Self.endHeaders) else {
                continuation = pending
                return nil
            }
            return Self.headerBlock(pending)
        }
        // §3.4: the client preface is followed by a SETTINGS frame.
        if !settingsSeen {
            guard header.type == 0x4, !header.has(Self.ack) else { throw .goAway(.protocolError) }
            settingsSeen = true
        }
        switch header.type {
        case 0x0:  // DATA
            guard header.streamID != 0 else { throw .goAway(.protocolError) }
            let length = payload.readableBytes
            let data = try Self.removePadding(header, from: payload, fixedFields: 0)
            return .data(streamID: header.streamID, endStream: header.has(Self.endStream), payload: data, flowControlledLength: length)
        case 0x1:  // HEADERS
            guard header.streamID != 0 else { throw .goAway(.protocolError) }
            let block = try Self.removePadding(header, from: payload, fixedFields: header.has(Self.priority) ? 5 : 0)
            var pending = PendingHeaderBlock(streamID: header.streamID, endStream: header.has(Self.endStream), block: block)
            // §5.3.1: a stream cannot depend on itself (a stream error of type PROTOCOL_ERROR).
            if header.has(Self.priority), Self.dependency(in: payload, padded: header.has(Self.padded)) == header.streamID {
                pending.errorCode = .protocolError
            }
            guard header.has(Self.endHeaders) else {
                continuation = pending
                return nil
            }
            return Self.headerBlock(pending)
        case 0x2:  // PRIORITY
            guard header.streamID != 0 else { throw .goAway(.protocolError) }
            guard payload.readableBytes == 5 else { return .streamError(streamID: header.streamID, errorCode: .frameSizeError) }
            // §5.3.1: a stream cannot depend on itself.
            if Self.dependency(in: payload, padded: false) == header.streamID {
                return .streamError(streamID: header.streamID, errorCode: .protocolError)
            }
            return .ignored
        case 0x3:  // RST_STREAM
            guard header.streamID != 0 else { throw .goAway(.protocolError) }
            guard let code = payload.readInteger(as: UInt32.self), payload.readableBytes == 0 else { throw .goAway(.frameSizeError) }
            return .rstStream(streamID: header.streamID, errorCode: HTTP2ErrorCode(networkCode: Int(code)))
        case 0x4:  // SETTINGS
            return try Self.parseSettings(header, payload)
        case 0x5:  // PUSH_PROMISE: only servers push (§8.4).
            throw .goAway(.protocolError)
        case 0x6:  // PING
            guard header.streamID == 0 else { throw .goAway(.protocolError) }
            guard let opaque = payload.readInteger(as: UInt64.self), payload.readableBytes == 0 else { throw .goAway(.frameSizeError) }
            return .ping(ack: header.has(Self.ack), opaqueData: opaque)
        case 0x7:  // GOAWAY
            guard header.streamID == 0 else { throw .goAway(.protocolError) }
            guard let last = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self) else {
                throw .goAway(.frameSizeError)
            }
            return .goAway(lastStreamID: last & 0x7FFF_FFFF, errorCode: HTTP2ErrorCode(networkCode: Int(code)), debugData: payload)
        case 0x8:  // WINDOW_UPDATE
            guard let raw = payload.readInteger(as: UInt32.self), payload.readableBytes == 0 else { throw .goAway(.frameSizeError) }
            let increment = Int(raw & 0x7FFF_FFFF)
            guard increment != 0 else {
                // §6.9: a zero increment is a stream error, or a connection error on stream 0.
                if header.streamID == 0 { throw .goAway(.protocolError) }
                return .streamError(streamID: header.streamID, errorCode: .protocolError)
            }
            return .windowUpdate(streamID: header.streamID, increment: increment)
        case 0x9:  // CONTINUATION without a HEADERS before it
            throw .goAway(.protocolError)
        default:
            return .ignored
        }
    }

    private static func headerBlock(_ pending: PendingHeaderBlock) -> HTTP2InboundFrame {
        if let errorCode = pending.errorCode {
            return .rejectedHeaders(streamID: pending.streamID, block: pending.block, errorCode: errorCode)
        }
        return .headers(streamID: pending.streamID, endStream: pending.endStream, block: pending.block)
    }

    /// The stream a priority block (§5.3.2 in RFC 7540, kept for parsing by RFC 9113 §6.2, §6.3) depends on.
    private static func dependency(in payload: ByteBuffer, padded: Bool) -> UInt32? {
        payload.getInteger(at: payload.readerIndex + (padded ? 1 : 0), as: UInt32.self).map { $0 & 0x7FFF_FFFF }
    }

    /// Strips the PADDED flag's pad length and padding, and `fixedFields` bytes after the pad length (§6.1, §6.2).
    private static func removePadding(_ header: FrameHeader, from payload: ByteBuffer, fixedFields: Int) throws(HTTP2ConnectionError) -> ByteBuffer {
        var payload = payload
        var padding = 0
        if header.has(padded) {
            guard let length = payload.readInteger(as: UInt8.self) else { throw .goAway(.frameSizeError) }
            padding = Int(length)
        }
        // §6.1: padding that is not shorter than what remains is a PROTOCOL_ERROR.
        guard payload.readableBytes >= fixedFields + padding else { throw .goAway(.protocolError) }
        payload.moveReaderIndex(forwardBy: fixedFields)
        guard let content = payload.readSlice(length: payload.readableBytes - padding) else { throw .goAway(.protocolError) }
        return content
    }

    private static func parseSettings(_ header: FrameHeader, _ payload: ByteBuffer) throws(HTTP2ConnectionError) -> HTTP2InboundFrame {
        guard header.streamID == 0 else { throw .goAway(.protocolError) }
        if header.has(ack) {
            guard payload.readableBytes == 0 else { throw .goAway(.frameSizeError) }
            return .settingsAck
        }
        guard payload.readableBytes % 6 == 0 else { throw .goAway(.frameSizeError) }
        var payload = payload
        var settings: [HTTP2InboundFrame.Setting] = []
        settings.reserveCapacity(payload.readableBytes / 6)
        while let parameter = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            // §6.5.2: the values a peer may not send.
            switch parameter {
            case 0x2 where value > 1: throw .goAway(.protocolError)
            case 0x4 where value > 0x7FFF_FFFF: throw .goAway(.flowControlError)
            case 0x5 where value < 16_384 || value > 16_777_215: throw .goAway(.protocolError)
            default: break
            }
            settings.append(.init(parameter: parameter, value: value))
        }
        return .settings(settings)
    }
}
