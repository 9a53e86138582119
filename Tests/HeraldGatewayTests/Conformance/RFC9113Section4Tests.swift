import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

@testable import HeraldGateway

/// RFC 9113 §4 (HTTP frames) on the provider port, frame by frame on bytes.
@Suite("RFC 9113 §4: HTTP frames", .tier(.unit))
struct RFC9113Section4Tests {
    @Test("§4.1: a frame of an unknown type is ignored and the connection goes on")
    func unknownFrameTypeIgnored() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(type: 0xFA, flags: 0xFF, streamID: 1, payload: [1, 2, 3]).isEmpty)
        #expect(
            try connection.send(type: 0x6, streamID: 0, payload: [1, 2, 3, 4, 5, 6, 7, 8]) == [
                .other(.ping(ack: true, opaqueData: 0x0102_0304_0506_0708))
            ]
        )
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§4.2: a frame longer than SETTINGS_MAX_FRAME_SIZE is a connection error FRAME_SIZE_ERROR")
    func frameAboveMaximumSize() async throws {
        var connection = try await ConformanceConnection.open()
        var bytes = ByteBuffer()
        bytes.writeFrameHeader(length: 16_385, type: 0x0, streamID: 1)
        bytes.writeBytes([UInt8](repeating: 0, count: 16_385))
        #expect(try connection.send(bytes) == [ConformanceConnection.goAway(.frameSizeError)])
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("FRAME_SIZE_ERROR") == "1")
        await connection.stop()
    }

    @Test("§4.3: a header block that cannot be decoded is a connection error COMPRESSION_ERROR")
    func undecodableHeaderBlock() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(headersFrame(streamID: 1, ByteBuffer(bytes: [0x80]))) == [ConformanceConnection.goAway(.compressionError)])
        #expect(!connection.isOpen)
        await connection.stop()
    }
}
