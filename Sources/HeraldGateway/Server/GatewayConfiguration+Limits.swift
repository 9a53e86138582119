import NIOCore

extension GatewayConfiguration {
    /// The bounds a provider connection is held to, so that no client can make the server buffer without limit
    /// (docs/provider-api.md, "Limits").
    ///
    /// Each limit that trips is counted in `herald_provider_protocol_errors_total` (docs/metrics.md).
    public struct Limits: Sendable {
        /// SETTINGS_MAX_HEADER_LIST_SIZE as advertised (RFC 9113 §6.5.2): decoded names and values plus 32 octets a
        /// field. A request above it is answered `431` and its stream closed.
        public var maximumHeaderListSize = 8000
        /// The largest header block (HEADERS and its CONTINUATION frames, still compressed) buffered before
        /// decoding; a frame that would take it past this is refused before it is buffered: GOAWAY `ENHANCE_YOUR_CALM`
        /// (as h2o and nginx answer a header block or field beyond their bounds).
        ///
        /// Why 32,000: four times the header list size, the most any acceptable header list can need. Encoded, a field
        /// takes at most its octets plus a few for the lengths (fewer than the 32 the list size counts), except with
        /// Huffman codes, which an encoder uses only when they are shorter but which can be up to 30 bits an octet
        /// (RFC 7541 Appendix B): 3.75 times the list size at worst.
        public var maximumHeaderBlockSize = 32_000
        /// CONTINUATION frames accepted in one header block; beyond it, GOAWAY `ENHANCE_YOUR_CALM`. Counts frames, not
        /// bytes: empty CONTINUATION frames cost the server work but add no bytes (the "CONTINUATION flood").
        public var maximumContinuationFrames = 64
        /// Control frames (PING and SETTINGS acknowledgements, RST_STREAM, WINDOW_UPDATE) queued while the client
        /// does not read; beyond it, GOAWAY `ENHANCE_YOUR_CALM` (swift-nio-http2's default, 10,000).
        public var maximumPendingControlFrames = 10_000
        /// How long a connection may take from accept to its first request bytes (TLS handshake and HTTP/2
        /// preface, or an HTTP/1.1 request line) before it is closed.
        public var handshakeTimeout: TimeAmount = .seconds(10)
        /// Open provider connections per process (TLS and cleartext); a connection accepted beyond it is closed
        /// at once.
        public var maximumConnections = 10_000
        /// Warning lines a second, at most, for provider connections closed for a protocol error or a limit (the
        /// rest are counted and reported by the next line written; `ConnectionClosureLog`). 0 logs none.
        public var closureLogLinesPerSecond = 10

        /// The production defaults.
        public init() {}
    }
}
