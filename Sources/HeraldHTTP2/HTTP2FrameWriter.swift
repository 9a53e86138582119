import NIOCore

/// Writes the server's frames (RFC 9113 §6) straight into an outbound buffer.
///
/// Why one buffer: the frames of one read or one group commit leave in a single write, not one write per frame.
extension ByteBuffer {
    /// A frame header (§4.1); the reserved bit of the stream id is cleared.
    public mutating func writeFrameHeader(length: Int, type: UInt8, flags: UInt8 = 0, streamID: UInt32) {
        writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        writeInteger(UInt16(truncatingIfNeeded: length))
        writeInteger(type)
        writeInteger(flags)
        writeInteger(streamID & 0x7FFF_FFFF)
    }

    /// A SETTINGS frame with `settings` in order (§6.5).
    public mutating func writeSettingsFrame(_ settings: [HTTP2InboundFrame.Setting]) {
        writeFrameHeader(length: settings.count * 6, type: 0x4, streamID: 0)
        for setting in settings {
            writeInteger(setting.parameter)
            writeInteger(setting.value)
        }
    }

    /// A SETTINGS acknowledgement (§6.5.3).
    public mutating func writeSettingsAckFrame() {
        writeFrameHeader(length: 0, type: 0x4, flags: 0x1, streamID: 0)
    }

    /// A PING with ACK echoing `opaqueData` (§6.7).
    public mutating func writePingAckFrame(opaqueData: UInt64) {
        writeFrameHeader(length: 8, type: 0x6, flags: 0x1, streamID: 0)
        writeInteger(opaqueData)
    }

    /// A WINDOW_UPDATE (§6.9); stream 0 is the connection's window.
    public mutating func writeWindowUpdateFrame(streamID: UInt32, increment: Int) {
        writeFrameHeader(length: 4, type: 0x8, streamID: streamID)
        writeInteger(UInt32(truncatingIfNeeded: increment) & 0x7FFF_FFFF)
    }

    /// A RST_STREAM (§6.4).
    public mutating func writeRSTStreamFrame(streamID: UInt32, errorCode: HTTP2ErrorCode) {
        writeFrameHeader(length: 4, type: 0x3, streamID: streamID)
        writeInteger(UInt32(truncatingIfNeeded: errorCode.networkCode))
    }

    /// A GOAWAY (§6.8).
    public mutating func writeGoAwayFrame(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8] = []) {
        writeFrameHeader(length: 8 + debugData.count, type: 0x7, streamID: 0)
        writeInteger(lastStreamID & 0x7FFF_FFFF)
        writeInteger(UInt32(truncatingIfNeeded: errorCode.networkCode))
        writeBytes(debugData)
    }

    /// A DATA frame without padding (§6.1).
    public mutating func writeDataFrame(streamID: UInt32, bytes: ArraySlice<UInt8>, endStream: Bool) {
        writeFrameHeader(length: bytes.count, type: 0x0, flags: endStream ? 0x1 : 0, streamID: streamID)
        writeBytes(bytes)
    }

    /// A HEADERS frame with END_HEADERS whose block is written by `block`; the length is filled in afterwards.
    public mutating func writeHeadersFrame(streamID: UInt32, endStream: Bool, block: (inout ByteBuffer) -> Void) {
        let start = writerIndex
        writeFrameHeader(length: 0, type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), streamID: streamID)
        block(&self)
        let length = writerIndex - start - 9
        setInteger(UInt8(truncatingIfNeeded: length >> 16), at: start)
        setInteger(UInt16(truncatingIfNeeded: length), at: start + 1)
    }
}

/// Encodes the answer's header fields without a dynamic table (RFC 7541).
///
/// `:status` is a static index when it has one and a literal with its name indexed otherwise; the other fields are
/// literals without indexing. So the encoder keeps no state and the peer's SETTINGS_HEADER_TABLE_SIZE never matters.
public enum HPACKResponseEncoder {
    /// `:status` (§6.1 indexed field, or §6.2.2 with the name indexed).
    public static func writeStatus(_ status: Int, into buffer: inout ByteBuffer) {
        if let index = HPACKStaticTable.statusIndex(status) {
            writeInteger(index, prefix: 7, flags: 0x80, into: &buffer)
        } else {
            writeLiteral(nameIndex: HPACKStaticTable.statusNameIndex, value: String(status).utf8, into: &buffer)
        }
    }

    /// A literal without indexing whose name is in the static table (§6.2.2, indexed name).
    public static func writeLiteral(nameIndex: Int, value: some Collection<UInt8>, into buffer: inout ByteBuffer) {
        writeInteger(nameIndex, prefix: 4, flags: 0, into: &buffer)
        writeString(value, into: &buffer)
    }

    /// A literal without indexing with a literal name (§6.2.2, new name); `name` must be lowercase.
    public static func writeLiteral(name: StaticString, value: some Collection<UInt8>, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(0))
        name.withUTF8Buffer { writeString($0, into: &buffer) }
        writeString(value, into: &buffer)
    }

    private static func writeString(_ bytes: some Collection<UInt8>, into buffer: inout ByteBuffer) {
        writeInteger(bytes.count, prefix: 7, flags: 0, into: &buffer)
        buffer.writeBytes(bytes)
    }

    /// An integer with an N-bit prefix (§5.1); `flags` are the bits above the prefix.
    public static func writeInteger(_ value: Int, prefix: Int, flags: UInt8, into buffer: inout ByteBuffer) {
        let maximum = (1 << prefix) - 1
        guard value >= maximum else {
            buffer.writeInteger(flags | UInt8(value))
            return
        }
        buffer.writeInteger(flags | UInt8(maximum))
        var rest = value - maximum
        while rest >= 128 {
            buffer.writeInteger(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        buffer.writeInteger(UInt8(rest))
    }
}
