import Dispatch
import HeraldHTTP2
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// RFC 9113 §5 (streams and multiplexing) on the provider port, frame by frame on bytes.
@Suite("RFC 9113 §5: streams", .tier(.inProcess))
struct RFC9113Section5Tests {
    @Test("§5.1: HEADERS on a closed stream is a connection error STREAM_CLOSED, not silence")
    func headersOnClosedStream() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        let answer = try connection.send(headersFrame(streamID: 1, request))
        #expect(answer.status == "400")
        #expect(try connection.send(headersFrame(streamID: 1, request)) == [ConformanceConnection.goAway(.streamClosed, lastStreamID: 1)])
        #expect(!connection.isOpen)
        await connection.stop()
    }

    @Test(
        "§5.1: trailers or DATA on a stream Herald reset (REFUSED_STREAM) are ignored: the client may have sent them before reading the reset",
        arguments: [true, false]
    )
    func framesAfterOurReset(trailers: Bool) async throws {
        var connection = try await ConformanceConnection.open()
        var bytes = ByteBuffer()
        bytes.writeSettingsAckFrame()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        bytes.writeImmutableBuffer(headersFrame(streamID: 1, request, endStream: false))
        // One stream until a valid token (spec §A.1): stream 3 is refused.
        bytes.writeImmutableBuffer(headersFrame(streamID: 3, request, endStream: false))
        #expect(try connection.send(bytes) == [ConformanceConnection.reset(3, .refusedStream)])
        let late = trailers ? headersFrame(streamID: 3, RawHeaderBlock([("x-trailer", "1")]).bytes) : connection.peer.data(streamID: 3, [1, 2, 3])
        #expect(try connection.send(late).isEmpty)
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§5.1.1: a stream id lower than one already used is a connection error PROTOCOL_ERROR")
    func lowerStreamID() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 5, request, endStream: false)).isEmpty)
        #expect(
            try connection.send(headersFrame(streamID: 3, request, endStream: false)) == [
                ConformanceConnection.goAway(.protocolError, lastStreamID: 5)
            ]
        )
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("PROTOCOL_ERROR") == "1")
        await connection.stop()
    }

    @Test("§5.1.1: a client stream with an even id is a connection error PROTOCOL_ERROR")
    func evenStreamID() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request()).bytes
        #expect(try connection.send(headersFrame(streamID: 2, request)) == [ConformanceConnection.goAway(.protocolError)])
        await connection.stop()
    }

    @Test(
        "§5.1: DATA, WINDOW_UPDATE or RST_STREAM on an idle stream is a connection error PROTOCOL_ERROR",
        arguments: [(0x0, [1, 2]), (0x8, [0, 0, 0, 1]), (0x3, [0, 0, 0, 8])] as [(UInt8, [UInt8])]
    )
    func frameOnIdleStream(type: UInt8, payload: [UInt8]) async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(type: type, streamID: 7, payload: payload) == [ConformanceConnection.goAway(.protocolError)])
        #expect(!connection.isOpen)
        await connection.stop()
    }

    @Test("§5.1: DATA after the client's END_STREAM (half-closed remote) is a stream error STREAM_CLOSED")
    func dataAfterEndStream() async throws {
        // A zero window holds the answer's body, so the stream stays open on Herald's side.
        var connection = try await ConformanceConnection.open(settings: [.init(parameter: 0x4, value: 0)])
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        let answer = try connection.send(headersFrame(streamID: 1, request))
        #expect(answer.status == "400")
        #expect(try connection.send(connection.peer.data(streamID: 1, [1, 2, 3])) == [ConformanceConnection.reset(1, .streamClosed)])
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§5.1 closed, §6.1: DATA on a stream already answered is a stream error STREAM_CLOSED, not silence")
    func dataAfterAnswer() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request)).status == "400")
        #expect(try connection.send(connection.peer.data(streamID: 1, [1, 2, 3])) == [ConformanceConnection.reset(1, .streamClosed)])
        // The rest of what the client sent before it read the reset is ignored.
        #expect(try connection.send(connection.peer.data(streamID: 1, [4])).isEmpty)
        #expect(connection.isOpen)
        #expect(connection.protocolErrors("STREAM_CLOSED") == "1")
        // The connection goes on serving.
        #expect(try connection.send(headersFrame(streamID: 3, request)).status == "400")
        await connection.stop()
    }

    @Test("§5.1 closed: DATA after the client's own RST_STREAM is a stream error STREAM_CLOSED")
    func dataAfterClientReset() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        #expect(try connection.send(type: 0x3, streamID: 1, payload: [0, 0, 0, 8]).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 1, [1, 2, 3])) == [ConformanceConnection.reset(1, .streamClosed)])
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§5.3.1: a PRIORITY frame making a stream depend on itself is a stream error PROTOCOL_ERROR")
    func priorityOnItself() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(type: 0x2, streamID: 3, payload: [0, 0, 0, 3, 16]) == [ConformanceConnection.reset(3, .protocolError)])
        #expect(try connection.send(type: 0x2, streamID: 5, payload: [0, 0, 0, 3, 16]).isEmpty)
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§5.3.1: HEADERS with a priority on its own stream is a stream error PROTOCOL_ERROR; the HPACK table stays in step")
    func headersPriorityOnItself() async throws {
        var connection = try await ConformanceConnection.open()
        // Indexed with incremental indexing (NIO's encoder), so the next request refers to this block's entries.
        let first = try connection.peer.headers(streamID: 1, connection.request(path: "/3/device/abc"), endStream: true)
        var payload = Array(first.readableBytesView.dropFirst(9))
        payload.insert(contentsOf: [0, 0, 0, 1, 16], at: 0)
        #expect(
            try connection.send(frame(type: 0x1, flags: 0x4 | 0x1 | 0x20, streamID: 1, payload: payload)) == [
                ConformanceConnection.reset(1, .protocolError)
            ]
        )
        let second = try connection.send(connection.peer.headers(streamID: 3, connection.request(path: "/3/device/abc"), endStream: true))
        #expect(second.status == "400")
        await connection.stop()
    }

    @Test("§5.1.2: a stream reset after END_STREAM while its notification commits still counts against MAX_CONCURRENT_STREAMS")
    func resetWhileCommittingCounts() async throws {
        let fixture = try await ProcessorFixture.make()
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(fixture.connection(initialStreams: 1, maximumStreams: 2))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        var peer = HTTP2TestPeer()
        _ = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        // The store's writer is held, so every commit stays in flight until released.
        let writerHeld = DispatchSemaphore(value: 0)
        let releaseWriter = DispatchSemaphore(value: 0)
        defer { releaseWriter.signal() }
        fixture.store.runOnWriterQueue {
            writerHeld.signal()
            releaseWriter.wait()
        }
        writerHeld.wait()
        var bytes = peer.preface()
        bytes.writeSettingsAckFrame()
        // One token for all three: a new token on each request would be TooManyProviderTokenUpdates.
        let fields = fixture.alertRequest()
        for streamID: UInt32 in [1, 3, 5] {
            bytes.writeImmutableBuffer(try peer.headers(streamID: streamID, fields))
            bytes.writeImmutableBuffer(peer.data(streamID: streamID, GatewayFixture.alertBody))
            // Stream 1 is reset (CANCEL) once complete: its commit goes on, and it still takes one of the two streams.
            if streamID == 1 { bytes.writeFrame(type: 0x3, streamID: 1, payload: [0, 0, 0, 8]) }
        }
        try await channel.writeInbound(bytes)
        let immediate = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(immediate.contains(.other(.rstStream(streamID: 5, errorCode: .refusedStream))))
        releaseWriter.signal()
        var answered: [UInt32: String] = [:]
        while answered[3] == nil {
            for case .headers(let streamID, let fields, _) in try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self)) {
                answered[streamID] = fields.first { $0[0] == ":status" }?[1]
            }
        }
        // Every commit done (stream 1's answer, had there been one, would be written by now).
        while try await channel.testingEventLoop.executeInContext({
            try channel.pipeline.syncOperations.handler(type: ProviderHTTP2Connection.self).inFlightCommits
        }) > 0 {
            await Task.yield()
        }
        while let more = try await channel.readOutbound(as: ByteBuffer.self) {
            for case .headers(let streamID, let fields, _) in try peer.parse(more) { answered[streamID] = fields.first { $0[0] == ":status" }?[1] }
        }
        #expect(answered == [3: "200"])
        #expect(try await fixture.store.counts().notifications == 2)
        _ = try? await channel.finish()
        await fixture.stop()
    }
}
