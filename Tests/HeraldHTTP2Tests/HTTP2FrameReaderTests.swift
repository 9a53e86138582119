import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

/// Tier 1: the frame reader on byte strings.
@Suite("HTTP/2 frame reader", .tier(.unit))
struct HTTP2FrameReaderTests {
    @Test("the preface and frames are read across any split of the bytes")
    func splitAcrossReads() throws {
        var bytes = ByteBuffer(bytes: HTTP2FrameReader.preface)
        bytes.writeSettingsFrame([.init(parameter: 0x4, value: 0)])
        bytes.writeFrame(type: 0x6, streamID: 0, payload: [1, 2, 3, 4, 5, 6, 7, 8])
        var reader = HTTP2FrameReader(maximumHeaderBlockSize: 32_000, maximumContinuationFrames: 64)
        var frames: [HTTP2InboundFrame] = []
        for byte in bytes.readableBytesView {
            reader.append(ByteBuffer(bytes: [byte]))
            while let frame = try reader.next() { frames.append(frame) }
        }
        #expect(frames == [.settings([.init(parameter: 0x4, value: 0)]), .ping(ack: false, opaqueData: 0x0102_0304_0506_0708)])
    }

    @Test("a wrong preface ends the connection without GOAWAY")
    func badPreface() {
        var reader = HTTP2FrameReader(maximumHeaderBlockSize: 32_000, maximumContinuationFrames: 64)
        reader.append(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: example.com\r\n"))
        #expect(throws: HTTP2ConnectionError.badPreface) { try reader.next() }
    }

    @Test("the first frame after the preface must be SETTINGS")
    func settingsFirst() {
        var reader = HTTP2FrameReader(maximumHeaderBlockSize: 32_000, maximumContinuationFrames: 64)
        var bytes = ByteBuffer(bytes: HTTP2FrameReader.preface)
        bytes.writeFrame(type: 0x6, streamID: 0, payload: [UInt8](repeating: 0, count: 8))
        reader.append(bytes)
        #expect(throws: HTTP2ConnectionError.goAway(.protocolError)) { try reader.next() }
    }

    @Test("DATA loses its padding but counts it for flow control")
    func paddedData() throws {
        var reader = Self.started()
        reader.append(frame(type: 0x0, flags: 0x8 | 0x1, streamID: 1, payload: [3, 0x61, 0x62, 0, 0, 0]))
        let frame = try reader.next()
        #expect(frame == .data(streamID: 1, endStream: true, payload: ByteBuffer(string: "ab"), flowControlledLength: 6))
    }

    @Test("padding as long as the payload is a PROTOCOL_ERROR")
    func paddingTooLong() {
        var reader = Self.started()
        reader.append(frame(type: 0x0, flags: 0x8, streamID: 1, payload: [3, 0, 0]))
        #expect(throws: HTTP2ConnectionError.goAway(.protocolError)) { try reader.next() }
    }

    @Test("HEADERS with PADDED and PRIORITY, then CONTINUATION frames, give one header block")
    func headersAndContinuation() throws {
        var reader = Self.started()
        // pad length 2, priority (5 bytes), block "ab", padding 2
        reader.append(frame(type: 0x1, flags: 0x8 | 0x20 | 0x1, streamID: 3, payload: [2, 0, 0, 0, 1, 16, 0x61, 0x62, 0, 0]))
        #expect(try reader.next() == nil)
        reader.append(frame(type: 0x9, streamID: 3, payload: [0x63]))
        #expect(try reader.next() == nil)
        reader.append(frame(type: 0x9, flags: 0x4, streamID: 3, payload: [0x64]))
        #expect(try reader.next() == .headers(streamID: 3, endStream: true, block: ByteBuffer(string: "abcd")))
    }

    @Test("a frame between HEADERS and its CONTINUATION, or a CONTINUATION alone, is a PROTOCOL_ERROR")
    func continuationOutOfSequence() {
        var reader = Self.started()
        reader.append(frame(type: 0x1, streamID: 3, payload: [0x61]))
        reader.append(frame(type: 0x9, flags: 0x4, streamID: 5, payload: [0x62]))
        #expect(throws: HTTP2ConnectionError.goAway(.protocolError)) { try reader.next() }
        var alone = Self.started()
        alone.append(frame(type: 0x9, flags: 0x4, streamID: 3, payload: [0x62]))
        #expect(throws: HTTP2ConnectionError.goAway(.protocolError)) { try alone.next() }
    }

    @Test("a header block past 32,000 octets (four times the list size) is refused by the frame that passes it")
    func oversizedHeaderBlock() throws {
        var reader = Self.started()
        reader.append(frame(type: 0x1, streamID: 1, payload: [UInt8](repeating: 0x82, count: 16_384)))
        reader.append(frame(type: 0x9, streamID: 1, payload: [UInt8](repeating: 0x82, count: 32_000 - 16_384)))
        #expect(try reader.next() == nil)
        reader.append(frame(type: 0x9, flags: 0x4, streamID: 1, payload: [0x82]))
        #expect(throws: HTTP2ConnectionError.limitExceeded(.headerBlockSize(32_000))) { try reader.next() }
    }

    @Test("bytes already read are not kept: a connection sending large frames back to back holds one frame, not all it sent")
    func readBytesDiscarded() throws {
        var reader = Self.started()
        // Reads of 10,000 octets across DATA frames of 16,384: every read but a few ends mid-frame.
        var stream = ByteBuffer()
        for _ in 0..<200 { stream.writeImmutableBuffer(frame(type: 0x0, streamID: 1, payload: [UInt8](repeating: 7, count: 16_384))) }
        var frames = 0
        var largestCapacity = 0
        while stream.readableBytes > 0 {
            // Each read in storage of its own, as the socket's reads come.
            reader.append(ByteBuffer(bytes: stream.readBytes(length: min(10_000, stream.readableBytes))!))
            while let next = try reader.next() {
                if case .data = next { frames += 1 }
            }
            largestCapacity = max(largestCapacity, reader.bufferedCapacity)
        }
        #expect(frames == 200)
        // 3.3 MB went through; the buffer never held more than a frame and a read (it grew to 3.3 MB before).
        #expect(largestCapacity <= 64 * 1024)
    }

    @Test("a frame over SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR as soon as its header arrives")
    func oversizedFrame() {
        var reader = Self.started()
        var header = ByteBuffer()
        header.writeFrameHeader(length: 16_385, type: 0x0, streamID: 1)
        reader.append(header)
        #expect(throws: HTTP2ConnectionError.goAway(.frameSizeError)) { try reader.next() }
    }

    @Test(
        "frame-level rules",
        arguments: [
            (UInt8(0x6), UInt8(0), UInt32(0), [UInt8](repeating: 0, count: 7), HTTP2ConnectionError.goAway(.frameSizeError)),
            (0x6, 0, 1, [UInt8](repeating: 0, count: 8), .goAway(.protocolError)),
            (0x0, 0, 0, [0x61], .goAway(.protocolError)),
            (0x4, 0, 1, [], .goAway(.protocolError)),
            (0x4, 0x1, 0, [0, 0, 0, 0, 0, 0], .goAway(.frameSizeError)),
            (0x4, 0, 0, [0, 4, 0x80, 0, 0, 0], .goAway(.flowControlError)),
            (0x4, 0, 0, [0, 5, 0, 0, 0x10, 0], .goAway(.protocolError)),
            (0x5, 0x4, 1, [0, 0, 0, 2], .goAway(.protocolError)),
            (0x8, 0, 0, [0, 0, 0, 0], .goAway(.protocolError)),
            (0x3, 0, 1, [0, 0], .goAway(.frameSizeError)),
        ]
    )
    func frameRules(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8], error: HTTP2ConnectionError) {
        var reader = Self.started()
        reader.append(frame(type: type, flags: flags, streamID: streamID, payload: payload))
        #expect(throws: error) { try reader.next() }
    }

    @Test("unknown frame types and PRIORITY are ignored; stream-level faults are stream errors")
    func ignoredAndStreamErrors() throws {
        var reader = Self.started()
        reader.append(frame(type: 0xFA, streamID: 1, payload: [1, 2, 3]))
        reader.append(frame(type: 0x2, streamID: 1, payload: [0, 0, 0, 0, 16]))
        reader.append(frame(type: 0x2, streamID: 1, payload: [0, 0]))
        reader.append(frame(type: 0x8, streamID: 1, payload: [0, 0, 0, 0]))
        #expect(try reader.next() == .ignored)
        #expect(try reader.next() == .ignored)
        #expect(try reader.next() == .streamError(streamID: 1, errorCode: .frameSizeError))
        #expect(try reader.next() == .streamError(streamID: 1, errorCode: .protocolError))
        #expect(try reader.next() == nil)
    }

    @Test("CONTINUATION frames are counted: the configured number is read, one more is ENHANCE_YOUR_CALM")
    func continuationCount() throws {
        var reader = Self.started(maximumContinuationFrames: 2)
        reader.append(frame(type: 0x1, streamID: 1, payload: [0x82]))
        reader.append(frame(type: 0x9, streamID: 1, payload: []))
        reader.append(frame(type: 0x9, flags: 0x4, streamID: 1, payload: [0x84]))
        #expect(try reader.next() == .headers(streamID: 1, endStream: false, block: ByteBuffer(bytes: [0x82, 0x84])))
        reader.append(frame(type: 0x1, streamID: 3, payload: [0x82]))
        for _ in 0..<3 { reader.append(frame(type: 0x9, streamID: 3, payload: [])) }
        #expect(throws: HTTP2ConnectionError.limitExceeded(.continuationFrames(2))) { try reader.next() }
    }

    @Test("a HEADERS or PRIORITY making a stream depend on itself is a stream error PROTOCOL_ERROR; its block is kept")
    func selfDependency() throws {
        var reader = Self.started()
        reader.append(frame(type: 0x2, streamID: 5, payload: [0, 0, 0, 5, 16]))
        reader.append(frame(type: 0x1, flags: 0x4 | 0x20 | 0x8, streamID: 7, payload: [1, 0x80, 0, 0, 7, 16, 0x82, 0]))
        #expect(try reader.next() == .streamError(streamID: 5, errorCode: .protocolError))
        #expect(try reader.next() == .rejectedHeaders(streamID: 7, block: ByteBuffer(bytes: [0x82]), errorCode: .protocolError))
    }

    /// A reader past the preface and the first SETTINGS, with the gateway's default limits unless told.
    static func started(maximumContinuationFrames: Int = 64) -> HTTP2FrameReader {
        var reader = HTTP2FrameReader(
            expectingPreface: false,
            maximumHeaderBlockSize: 32_000,
            maximumContinuationFrames: maximumContinuationFrames
        )
        var settings = ByteBuffer()
        settings.writeSettingsFrame([])
        reader.append(settings)
        _ = try? reader.next()
        return reader
    }
}

func frame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeFrame(type: type, flags: flags, streamID: streamID, payload: payload)
    return buffer
}

extension ByteBuffer {
    mutating func writeFrame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8]) {
        writeFrameHeader(length: payload.count, type: type, flags: flags, streamID: streamID)
        writeBytes(payload)
    }
}
