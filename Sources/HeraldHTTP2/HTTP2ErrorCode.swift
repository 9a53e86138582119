/// An HTTP/2 error code (RFC 9113 §7), as RST_STREAM and GOAWAY carry it.
///
/// A struct, not an enum: a peer may send a code §7 does not define, which is data (§7: "MUST NOT trigger any special
/// behavior"). The names and values are swift-nio-http2's, so code written against `NIOHTTP2.HTTP2ErrorCode` reads
/// the same; Herald's codec has its own so that it needs NIOCore only.
public struct HTTP2ErrorCode: Hashable, Sendable {
    /// The 32-bit value on the wire.
    public var networkCode: Int

    /// The code with this wire value.
    public init(networkCode: Int) {
        self.networkCode = networkCode
    }

    /// NO_ERROR (0x0): a graceful end.
    public static let noError = HTTP2ErrorCode(networkCode: 0x0)
    /// PROTOCOL_ERROR (0x1).
    public static let protocolError = HTTP2ErrorCode(networkCode: 0x1)
    /// INTERNAL_ERROR (0x2).
    public static let internalError = HTTP2ErrorCode(networkCode: 0x2)
    /// FLOW_CONTROL_ERROR (0x3).
    public static let flowControlError = HTTP2ErrorCode(networkCode: 0x3)
    /// SETTINGS_TIMEOUT (0x4).
    public static let settingsTimeout = HTTP2ErrorCode(networkCode: 0x4)
    /// STREAM_CLOSED (0x5).
    public static let streamClosed = HTTP2ErrorCode(networkCode: 0x5)
    /// FRAME_SIZE_ERROR (0x6).
    public static let frameSizeError = HTTP2ErrorCode(networkCode: 0x6)
    /// REFUSED_STREAM (0x7): the stream was not processed and may be retried.
    public static let refusedStream = HTTP2ErrorCode(networkCode: 0x7)
    /// CANCEL (0x8).
    public static let cancel = HTTP2ErrorCode(networkCode: 0x8)
    /// COMPRESSION_ERROR (0x9): the HPACK state can no longer be kept (RFC 7541 §2.1).
    public static let compressionError = HTTP2ErrorCode(networkCode: 0x9)
    /// CONNECT_ERROR (0xa).
    public static let connectError = HTTP2ErrorCode(networkCode: 0xA)
    /// ENHANCE_YOUR_CALM (0xb): the peer is generating excessive load.
    public static let enhanceYourCalm = HTTP2ErrorCode(networkCode: 0xB)
    /// INADEQUATE_SECURITY (0xc).
    public static let inadequateSecurity = HTTP2ErrorCode(networkCode: 0xC)
    /// HTTP_1_1_REQUIRED (0xd).
    public static let http11Required = HTTP2ErrorCode(networkCode: 0xD)
}
