import HeraldHTTP2
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// A provider HTTP/2 connection on an in-memory channel, driven with raw frames: what the conformance suites (one a
/// section of RFC 9113 or RFC 7541) send and read.
struct ConformanceConnection {
    let fixture: ProcessorFixture
    let handler: ProviderHTTP2Connection
    let channel: EmbeddedChannel
    var peer: HTTP2TestPeer

    /// A connection past both prefaces (SETTINGS exchanged, not yet acknowledged by the client).
    static func open(
        settings: [HTTP2InboundFrame.Setting] = [],
        limits: GatewayConfiguration.Limits = .init()
    ) async throws -> ConformanceConnection {
        let fixture = try await ProcessorFixture.make()
        let handler = fixture.connection(limits: limits)
        let (channel, peer) = try ProviderHTTP2ConnectionTests.open(handler, settings: settings)
        return ConformanceConnection(fixture: fixture, handler: handler, channel: channel, peer: peer)
    }

    /// Writes `bytes` as one read and returns the frames the server wrote.
    @discardableResult
    mutating func send(_ bytes: ByteBuffer) throws -> [HTTP2TestPeer.ServerFrame] {
        try channel.writeInbound(bytes)
        return try peer.frames(from: channel)
    }

    /// Writes one raw frame.
    @discardableResult
    mutating func send(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) throws -> [HTTP2TestPeer.ServerFrame] {
        try send(frame(type: type, flags: flags, streamID: streamID, payload: payload))
    }

    /// A valid push's fields for the fixture's token (`path` overrides it, e.g. to get an answer without a commit).
    func request(path: String? = nil) -> [(String, String)] {
        fixture.alertRequest(path: path)
    }

    var isOpen: Bool { channel.isActive }

    /// The value of `herald_provider_protocol_errors_total{code=…}` now.
    func protocolErrors(_ code: String) -> String? {
        let prefix = #"herald_provider_protocol_errors_total{code="\#(code)"} "#
        return fixture.registry.emitToString().split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    func stop() async {
        _ = try? channel.finish()
        await fixture.stop()
    }

    /// The GOAWAY a connection error ends with (no debug data), naming the last stream Herald read.
    static func goAway(_ code: HTTP2ErrorCode, lastStreamID: UInt32 = 0) -> HTTP2TestPeer.ServerFrame {
        .other(.goAway(lastStreamID: lastStreamID, errorCode: code, debugData: ByteBuffer()))
    }

    static func reset(_ streamID: UInt32, _ code: HTTP2ErrorCode) -> HTTP2TestPeer.ServerFrame {
        .other(.rstStream(streamID: streamID, errorCode: code))
    }
}

/// A header block written by hand: literals without indexing or Huffman coding (RFC 7541 §6.2.2), so each name goes
/// on the wire exactly as given, upper case included, which an HPACK encoder would not allow.
struct RawHeaderBlock {
    var bytes = ByteBuffer()

    init(_ fields: [(String, String)] = []) {
        for (name, value) in fields { add(name, value) }
    }

    mutating func add(_ name: String, _ value: String) {
        bytes.writeInteger(UInt8(0))
        addString(Array(name.utf8), huffman: false)
        addString(Array(value.utf8), huffman: false)
    }

    /// A field whose value is sent with the Huffman flag, `encoded` taken as is.
    mutating func add(_ name: String, huffmanEncoded encoded: [UInt8]) {
        bytes.writeInteger(UInt8(0))
        addString(Array(name.utf8), huffman: false)
        addString(encoded, huffman: true)
    }

    private mutating func addString(_ octets: [UInt8], huffman: Bool) {
        HPACKResponseEncoder.writeInteger(octets.count, prefix: 7, flags: huffman ? 0x80 : 0, into: &bytes)
        bytes.writeBytes(octets)
    }
}

/// A HEADERS frame (type 0x1) carrying `block`; `dependsOn` adds the PRIORITY flag and its five octets.
func headersFrame(
    streamID: UInt32,
    _ block: ByteBuffer,
    endStream: Bool = true,
    endHeaders: Bool = true,
    dependsOn dependency: UInt32? = nil
) -> ByteBuffer {
    var payload: [UInt8] = []
    var flags: UInt8 = (endStream ? 0x1 : 0) | (endHeaders ? 0x4 : 0)
    if let dependency {
        flags |= 0x20
        payload += withUnsafeBytes(of: dependency.bigEndian, Array.init) + [15]
    }
    payload += Array(block.readableBytesView)
    return frame(type: 0x1, flags: flags, streamID: streamID, payload: payload)
}

extension [HTTP2TestPeer.ServerFrame] {
    /// The `:status` of the first HEADERS among the frames (a SETTINGS raising the stream limit may come first).
    var status: String? { first { !$0.headerFields.isEmpty }?.headerFields[":status"] }
}
