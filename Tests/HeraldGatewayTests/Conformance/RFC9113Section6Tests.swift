import HeraldHTTP2
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import Testing

@testable import HeraldGateway

/// RFC 9113 §6 (frame definitions) on the provider port, frame by frame on bytes.
@Suite("RFC 9113 §6: frame definitions", .tier(.inProcess))
struct RFC9113Section6Tests {
    /// One frame that breaks a rule of §6, and the connection error it must cause.
    struct FrameRule: Sendable, CustomTestStringConvertible {
        var rule: String
        var type: UInt8
        var flags: UInt8 = 0
        var streamID: UInt32
        var payload: [UInt8]
        var code: HTTP2ErrorCode

        var testDescription: String { rule }
    }

    static let frameRules: [FrameRule] = [
        FrameRule(rule: "§6.1 DATA on stream 0", type: 0x0, streamID: 0, payload: [1], code: .protocolError),
        FrameRule(rule: "§6.1 padding as long as the payload", type: 0x0, flags: 0x8, streamID: 1, payload: [4, 0, 0, 0], code: .protocolError),
        FrameRule(rule: "§6.2 HEADERS on stream 0", type: 0x1, flags: 0x5, streamID: 0, payload: [0x82], code: .protocolError),
        FrameRule(rule: "§6.3 PRIORITY on stream 0", type: 0x2, streamID: 0, payload: [0, 0, 0, 1, 1], code: .protocolError),
        FrameRule(rule: "§6.4 RST_STREAM on stream 0", type: 0x3, streamID: 0, payload: [0, 0, 0, 8], code: .protocolError),
        FrameRule(rule: "§6.4 RST_STREAM not 4 octets", type: 0x3, streamID: 1, payload: [0, 0, 8], code: .frameSizeError),
        FrameRule(rule: "§6.5 SETTINGS on a stream", type: 0x4, streamID: 1, payload: [], code: .protocolError),
        FrameRule(rule: "§6.5 SETTINGS not a multiple of 6 octets", type: 0x4, streamID: 0, payload: [0, 3, 0, 0, 0], code: .frameSizeError),
        FrameRule(rule: "§6.6 PUSH_PROMISE from a client", type: 0x5, flags: 0x4, streamID: 1, payload: [0, 0, 0, 2], code: .protocolError),
        FrameRule(rule: "§6.7 PING on a stream", type: 0x6, streamID: 1, payload: [0, 0, 0, 0, 0, 0, 0, 0], code: .protocolError),
        FrameRule(rule: "§6.8 GOAWAY on a stream", type: 0x7, streamID: 1, payload: [0, 0, 0, 0, 0, 0, 0, 0], code: .protocolError),
        FrameRule(rule: "§6.9 WINDOW_UPDATE not 4 octets", type: 0x8, streamID: 0, payload: [0, 0, 1], code: .frameSizeError),
        FrameRule(rule: "§6.9.1 connection window above 2^31-1", type: 0x8, streamID: 0, payload: [0x7F, 0xFF, 0xFF, 0xFF], code: .flowControlError),
        FrameRule(rule: "§6.10 CONTINUATION without HEADERS", type: 0x9, flags: 0x4, streamID: 1, payload: [0x82], code: .protocolError),
    ]

    @Test("§6: a frame that breaks its definition is a connection error with the code the section names", arguments: frameRules)
    func frameRule(_ rule: FrameRule) async throws {
        var connection = try await ConformanceConnection.open()
        #expect(
            try connection.send(type: rule.type, flags: rule.flags, streamID: rule.streamID, payload: rule.payload) == [
                ConformanceConnection.goAway(rule.code)
            ]
        )
        #expect(!connection.isOpen)
        await connection.stop()
    }

    @Test("§6.10: a frame of another stream between HEADERS and its CONTINUATION is a connection error PROTOCOL_ERROR")
    func interleavedContinuation() async throws {
        var connection = try await ConformanceConnection.open()
        var bytes = headersFrame(streamID: 1, RawHeaderBlock(connection.request()).bytes, endHeaders: false)
        bytes.writeFrame(type: 0x6, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try connection.send(bytes) == [ConformanceConnection.goAway(.protocolError)])
        await connection.stop()
    }

    @Test("§6.8: after the client's GOAWAY the open stream is still answered, then the connection closes")
    func clientGoAway() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        #expect(try connection.send(type: 0x7, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0]).isEmpty)
        #expect(connection.isOpen)
        #expect(try connection.send(connection.peer.data(streamID: 1, GatewayFixture.alertBody)).status == "400")
        #expect(!connection.isOpen)
        await connection.stop()
    }

    @Test("§6.4: RST_STREAM on an idle stream is a connection error PROTOCOL_ERROR")
    func resetOnIdleStream() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(type: 0x3, streamID: 1, payload: [0, 0, 0, 8]) == [ConformanceConnection.goAway(.protocolError)])
        await connection.stop()
    }

    @Test(
        "§6.5.2: SETTINGS values a client may not send are connection errors",
        arguments: [
            (0x2, 2, .protocolError),  // SETTINGS_ENABLE_PUSH other than 0 or 1
            (0x4, 0x8000_0000, .flowControlError),  // SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1
            (0x5, 16_383, .protocolError),  // SETTINGS_MAX_FRAME_SIZE below the initial value
            (0x5, 16_777_216, .protocolError),  // and above 2^24-1
        ] as [(UInt16, UInt32, HTTP2ErrorCode)]
    )
    func invalidSettings(parameter: UInt16, value: UInt32, code: HTTP2ErrorCode) async throws {
        var connection = try await ConformanceConnection.open()
        var bytes = ByteBuffer()
        bytes.writeSettingsFrame([.init(parameter: parameter, value: value)])
        #expect(try connection.send(bytes) == [ConformanceConnection.goAway(code)])
        #expect(!connection.isOpen)
        await connection.stop()
    }

    @Test("§6.5: a SETTINGS acknowledgement with a payload is a connection error FRAME_SIZE_ERROR")
    func settingsAckWithPayload() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(
            try connection.send(type: 0x4, flags: 0x1, streamID: 0, payload: [0, 3, 0, 0, 0, 1]) == [ConformanceConnection.goAway(.frameSizeError)]
        )
        await connection.stop()
    }

    @Test("§6.7: PING is answered by a PING with ACK and the same data; a PING ACK is not answered")
    func pingAcknowledged() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(
            try connection.send(type: 0x6, streamID: 0, payload: [8, 7, 6, 5, 4, 3, 2, 1]) == [
                .other(.ping(ack: true, opaqueData: 0x0807_0605_0403_0201))
            ]
        )
        #expect(try connection.send(type: 0x6, flags: 0x1, streamID: 0, payload: [8, 7, 6, 5, 4, 3, 2, 1]).isEmpty)
        #expect(try connection.send(type: 0x6, streamID: 0, payload: [1]) == [ConformanceConnection.goAway(.frameSizeError)])
        await connection.stop()
    }

    @Test("§6.9: a WINDOW_UPDATE of 0 is a stream error PROTOCOL_ERROR, or a connection error on stream 0")
    func zeroWindowUpdate() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        #expect(try connection.send(type: 0x8, streamID: 1, payload: [0, 0, 0, 0]) == [ConformanceConnection.reset(1, .protocolError)])
        #expect(
            try connection.send(type: 0x8, streamID: 0, payload: [0, 0, 0, 0]) == [ConformanceConnection.goAway(.protocolError, lastStreamID: 1)]
        )
        await connection.stop()
    }

    @Test("§6.9.1: DATA beyond the stream's flow-control window is a stream error FLOW_CONTROL_ERROR")
    func dataBeyondStreamWindow() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        // Padding only: each frame takes 256 octets of the window and adds nothing to the body, so Herald does not
        // reopen the window; 255 frames leave 255 octets of the 65,535.
        let padded = [255] + [UInt8](repeating: 0, count: 255)
        var bytes = ByteBuffer()
        for _ in 0..<255 { bytes.writeFrame(type: 0x0, flags: 0x8, streamID: 1, payload: padded) }
        #expect(try connection.send(bytes).isEmpty)
        #expect(try connection.send(type: 0x0, flags: 0x8, streamID: 1, payload: padded) == [ConformanceConnection.reset(1, .flowControlError)])
        #expect(connection.isOpen)
        #expect(connection.protocolErrors("FLOW_CONTROL_ERROR") == "1")
        await connection.stop()
    }

    @Test("§8.1: a body past every push type's limit is answered PayloadTooLarge at once, then RST_STREAM NO_ERROR")
    func bodyWithNoEnd() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        // The first 16 KiB frame passes the 5,120 octets of the largest payload (VoIP): the answer does not wait for
        // an end that may never come.
        let first = try connection.send(connection.peer.data(streamID: 1, [UInt8](repeating: 0x20, count: 16_384), endStream: false))
        #expect(first.status == "413")
        #expect(first.last == ConformanceConnection.reset(1, .noError))
        #expect(!first.contains { if case .other(.windowUpdate(streamID: 1, _)) = $0 { true } else { false } })
        #expect(connection.handler.streams.isEmpty)
        // What the client sent before it read the reset is ignored: no answer, no window, no error.
        for _ in 0..<3 {
            let later = try connection.send(connection.peer.data(streamID: 1, [UInt8](repeating: 0x20, count: 16_384), endStream: false))
            #expect(!later.contains { if case .other(.windowUpdate(streamID: 1, _)) = $0 { true } else { false } })
            #expect(!later.contains { if case .other(.rstStream) = $0 { true } else { false } })
        }
        #expect(connection.isOpen)
        #expect(connection.fixture.registry.emitToString().contains(#"herald_notifications_rejected_total{reason="PayloadTooLarge",status="413"} 1"#))
        await connection.stop()
    }

    @Test("§8.1: a body past the limit that ends in the same frame is answered PayloadTooLarge with no reset")
    func oversizedBodyEndingAtOnce() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        let answer = try connection.send(connection.peer.data(streamID: 1, [UInt8](repeating: 0x20, count: 6000), endStream: true))
        #expect(answer.status == "413")
        #expect(!answer.contains { if case .other(.rstStream) = $0 { true } else { false } })
        await connection.stop()
    }

    @Test("§6.10: CONTINUATION frames are counted: past the limit in one header block, GOAWAY ENHANCE_YOUR_CALM")
    func continuationFlood() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        var bytes = headersFrame(streamID: 1, request, endHeaders: false)
        // Empty frames: the block never grows, so only a count can stop them (a million were accepted before).
        for _ in 0..<1000 { bytes.writeFrame(type: 0x9, streamID: 1, payload: []) }
        bytes.writeFrame(type: 0x9, flags: 0x4, streamID: 1, payload: [])
        #expect(try connection.send(bytes) == [ConformanceConnection.goAway(.enhanceYourCalm)])
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("ENHANCE_YOUR_CALM") == "1")
        await connection.stop()
    }

    @Test("§6.10: up to the limit of CONTINUATION frames, the header block is read and the request answered")
    func continuationWithinLimit() async throws {
        var connection = try await ConformanceConnection.open()
        let request = Array(RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes.readableBytesView)
        var bytes = headersFrame(streamID: 1, ByteBuffer(bytes: request.prefix(10)), endHeaders: false)
        for index in 0..<64 {
            let piece = index == 63 ? Array(request.dropFirst(10)) : []
            bytes.writeFrame(type: 0x9, flags: index == 63 ? 0x4 : 0, streamID: 1, payload: piece)
        }
        #expect(try connection.send(bytes).status == "400")
        await connection.stop()
    }
}
