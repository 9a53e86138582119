import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// RFC 9113 §10.5 (denial-of-service considerations): every buffer a client can fill on the provider port is bounded.
@Suite("RFC 9113 §10.5: limits", .tier(.unit))
struct RFC9113Section10Tests {
    /// A PING or an empty SETTINGS: each must be acknowledged.
    enum ControlFrame: String, CaseIterable, CustomTestStringConvertible {
        case ping, settings

        var testDescription: String { rawValue }

        func write(into bytes: inout ByteBuffer) {
            switch self {
            case .ping: bytes.writeFrame(type: 0x6, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 1])
            case .settings: bytes.writeFrame(type: 0x4, streamID: 0, payload: [])
            }
        }
    }

    @Test("§10.5: a client that never reads gets GOAWAY ENHANCE_YOUR_CALM past 10,000 pending acknowledgements", arguments: ControlFrame.allCases)
    func controlFrameFlood(kind: ControlFrame) async throws {
        var connection = try await ConformanceConnection.open()
        connection.channel.isWritable = false
        var bytes = ByteBuffer()
        for _ in 0..<10_001 { kind.write(into: &bytes) }
        let frames = try connection.send(bytes)
        // The acknowledgement that went over the limit is written too, then the GOAWAY.
        #expect(frames.count == 10_002)
        #expect(frames.last == ConformanceConnection.goAway(.enhanceYourCalm))
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("ENHANCE_YOUR_CALM") == "1")
        await connection.stop()
    }

    @Test("§10.5: acknowledgements up to the limit wait while the client does not read, and leave once it does")
    func acknowledgementsWaitForWritability() async throws {
        var connection = try await ConformanceConnection.open()
        connection.channel.isWritable = false
        var bytes = ByteBuffer()
        for _ in 0..<10_000 { ControlFrame.ping.write(into: &bytes) }
        #expect(try connection.send(bytes).isEmpty)
        #expect(connection.isOpen)
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try connection.peer.frames(from: connection.channel).count == 10_000)
        await connection.stop()
    }

    @Test("a flush that turns the channel writable again (the callback runs inside the write) sends each frame once")
    func reentrantFlushSendsOnce() async throws {
        let fixture = try await ProcessorFixture.make()
        let trigger = WritableDuringFlush()
        let channel = EmbeddedChannel(handlers: [trigger, fixture.connection()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var peer = HTTP2TestPeer()
        try channel.writeInbound(peer.preface())
        channel.pipeline.fireChannelReadComplete()
        #expect(try peer.frames(from: channel).count == 3)
        // Under load NIO fires channelWritabilityChanged from inside writeAndFlush, when the bytes it kept from
        // earlier leave the socket; the handler flushes again from that callback.
        trigger.armed = true
        var pings = ByteBuffer()
        for _ in 0..<3 { ControlFrame.ping.write(into: &pings) }
        try channel.writeInbound(pings)
        channel.pipeline.fireChannelReadComplete()
        #expect(trigger.fired == 1)
        let frames = try peer.frames(from: channel)
        #expect(frames.count == 3, "\(frames)")
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("§10.5: reads stop while the channel is not writable and resume when it is")
    func readsHeldWhileNotWritable() async throws {
        let fixture = try await ProcessorFixture.make()
        let counter = ReadCounter()
        let channel = EmbeddedChannel(handlers: [counter, fixture.connection()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.pipeline.read()
        #expect(counter.reads == 1)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.pipeline.read()
        #expect(counter.reads == 1)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(counter.reads == 2)
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("§10.5.1: a header list above the advertised 8000 is answered 431 and its stream closed; nothing is kept")
    func headerListTooLarge() async throws {
        var connection = try await ConformanceConnection.open()
        let block = Array(RawHeaderBlock(connection.request() + [("x-big", String(repeating: "a", count: 30_000))]).bytes.readableBytesView)
        for stream in stride(from: UInt32(1), through: 9, by: 2) {
            var bytes = headersFrame(streamID: stream, ByteBuffer(bytes: block.prefix(16_000)), endStream: false, endHeaders: false)
            var rest = block.dropFirst(16_000)
            while !rest.isEmpty {
                let piece = rest.prefix(16_000)
                rest = rest.dropFirst(piece.count)
                bytes.writeFrame(type: 0x9, flags: rest.isEmpty ? 0x4 : 0, streamID: stream, payload: Array(piece))
            }
            let frames = try connection.send(bytes)
            #expect(frames.count == 2)
            #expect(frames.first == .headers(streamID: stream, [[":status", "431"]], endStream: true))
            #expect(frames.last == ConformanceConnection.reset(stream, .noError))
        }
        #expect(connection.handler.streams.isEmpty)
        #expect(connection.protocolErrors("header_list_too_large") == "5")
        await connection.stop()
    }

    @Test("§10.5: a header block past what any acceptable list needs (32,000 octets) is refused before it is buffered")
    func headerBlockTooLarge() async throws {
        var connection = try await ConformanceConnection.open()
        let block = Array(RawHeaderBlock(connection.request() + [("x-big", String(repeating: "a", count: 60_000))]).bytes.readableBytesView)
        // The frame that takes the block past the bound ends the connection; END_HEADERS never comes.
        var bytes = headersFrame(streamID: 1, ByteBuffer(bytes: block.prefix(16_000)), endStream: true, endHeaders: false)
        bytes.writeFrame(type: 0x9, streamID: 1, payload: Array(block[16_000..<32_001]))
        #expect(try connection.send(bytes) == [ConformanceConnection.goAway(.enhanceYourCalm)])
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("header_block_too_large") == "1")
        #expect(connection.protocolErrors("ENHANCE_YOUR_CALM") == "1")
        await connection.stop()
    }

    @Test("§6.5.2: a header list of exactly SETTINGS_MAX_HEADER_LIST_SIZE is served")
    func headerListAtLimit() async throws {
        var connection = try await ConformanceConnection.open()
        var fields = connection.request(path: "/3/device/abc")
        let used = fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 32 }
        fields.append(("x-pad", String(repeating: "a", count: 8000 - used - 5 - 32)))
        #expect(try connection.send(headersFrame(streamID: 1, RawHeaderBlock(fields).bytes)).status == "400")
        await connection.stop()
    }
}

/// Counts the reads that reach the head of the pipeline.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// Fires `channelWritabilityChanged` from inside the next flush, as NIO does when the bytes it kept leave the socket.
final class WritableDuringFlush: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var armed = false
    var fired = 0

    func flush(context: ChannelHandlerContext) {
        context.flush()
        guard armed else { return }
        armed = false
        fired += 1
        context.fireChannelWritabilityChanged()
    }
}
