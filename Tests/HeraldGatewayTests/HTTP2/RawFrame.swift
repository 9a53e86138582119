import HeraldHTTP2
import NIOCore

/// One frame written by hand, whatever its type, flags and payload (HeraldHTTP2Tests has the same two helpers).
func frame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeFrame(type: type, flags: flags, streamID: streamID, payload: payload)
    return buffer
}

extension ByteBuffer {
    /// Appends one frame written by hand.
    mutating func writeFrame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8]) {
        writeFrameHeader(length: payload.count, type: type, flags: flags, streamID: streamID)
        writeBytes(payload)
    }
}
