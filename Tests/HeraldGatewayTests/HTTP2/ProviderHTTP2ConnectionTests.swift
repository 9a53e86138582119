import Dispatch
import HeraldCore
import HeraldHTTP2
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// Tier 2: the provider HTTP/2 connection on an in-memory channel, frame by frame.
@Suite("Provider HTTP/2 connection in process", .tier(.inProcess))
struct ProviderHTTP2ConnectionTests {
    @Test("SETTINGS and the connection window first, then a valid push is answered 200 after its commit")
    func acceptsPush() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened, opening) = try await Self.openAsync(fixture, maximumStreams: 500)
        var peer = opened
        #expect(
            opening == [
                .other(.settings([.init(parameter: 0x3, value: 1), .init(parameter: 0x6, value: 8000)])),
                .other(.windowUpdate(streamID: 0, increment: 8 * 1024 * 1024 - 65_535)),
            ]
        )
        var request = peer.preface()
        request.writeSettingsAckFrame()
        let fields = fixture.alertRequest()
        request.writeImmutableBuffer(try peer.headers(streamID: 1, fields))
        request.writeImmutableBuffer(peer.data(streamID: 1, GatewayFixture.alertBody))
        try await channel.writeInbound(request)
        channel.pipeline.fireChannelReadComplete()
        // SETTINGS ACK, and the stream limit raised by the first valid token (spec §A.1).
        let immediate = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(immediate == [.other(.settingsAck), .other(.settings([.init(parameter: 0x3, value: 500)]))])
        let answer = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(answer.count == 1)
        guard case .headers(let streamID, _, let endStream) = answer.first else {
            Issue.record("expected HEADERS, got \(answer)")
            return
        }
        #expect(streamID == 1 && endStream)
        #expect(answer[0].headerFields[":status"] == "200")
        #expect(answer[0].headerFields["apns-id"]?.count == 36)
        // The second request's fields come from the dynamic table (NIO's encoder indexes them).
        var second = try peer.headers(streamID: 3, fields)
        #expect(second.readableBytes < 40)
        second.writeImmutableBuffer(peer.data(streamID: 3, GatewayFixture.alertBody))
        try await channel.writeInbound(second)
        channel.pipeline.fireChannelReadComplete()
        let secondAnswer = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(secondAnswer.first?.headerFields[":status"] == "200")
        #expect(try await fixture.store.counts().notifications == 2)
        _ = try await channel.finish()
        await fixture.stop()
    }

    @Test("a rejected stream gets HEADERS with content-type and one JSON DATA frame with END_STREAM")
    func answersRejection() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection())
        var peer = opened
        try channel.writeInbound(
            try peer.headers(streamID: 1, [(":method", "GET"), (":path", "/3/device/abcd"), (":scheme", "https")], endStream: true)
        )
        channel.pipeline.fireChannelReadComplete()
        let frames = try peer.frames(from: channel)
        #expect(frames.count == 2)
        #expect(frames.first?.headerFields[":status"] == "405")
        #expect(frames.first?.headerFields["content-type"] == "application/json")
        #expect(frames.first?.headerFields["apns-id"] != nil)
        #expect(
            frames.last
                == .other(
                    .data(streamID: 1, endStream: true, payload: ByteBuffer(string: #"{"reason":"MethodNotAllowed"}"#), flowControlledLength: 29)
                )
        )
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("PING is answered with a PING ACK carrying the same data")
    func ping() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection())
        var peer = opened
        try channel.writeInbound(frame(type: 0x6, streamID: 0, payload: [9, 8, 7, 6, 5, 4, 3, 2]))
        channel.pipeline.fireChannelReadComplete()
        #expect(try peer.frames(from: channel) == [.other(.ping(ack: true, opaqueData: 0x0908_0706_0504_0302))])
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("an error body waits for the client's stream window and is split to fit it")
    func errorBodyRespectsWindow() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection(), settings: [.init(parameter: 0x4, value: 0)])
        var peer = opened
        try channel.writeInbound(try peer.headers(streamID: 1, fixture.alertRequest(path: "/3/device/abc"), endStream: false))
        try channel.writeInbound(peer.data(streamID: 1, GatewayFixture.alertBody))
        channel.pipeline.fireChannelReadComplete()
        var frames = try peer.frames(from: channel).filter { if case .other(.settings) = $0 { false } else { true } }
        #expect(frames.count == 1)
        #expect(frames.first?.headerFields[":status"] == "400")
        let body = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        try channel.writeInbound(frame(type: 0x8, streamID: 1, payload: [0, 0, 0, 10]))
        channel.pipeline.fireChannelReadComplete()
        frames = try peer.frames(from: channel)
        #expect(frames == [.other(.data(streamID: 1, endStream: false, payload: ByteBuffer(bytes: body.prefix(10)), flowControlledLength: 10))])
        try channel.writeInbound(frame(type: 0x8, streamID: 1, payload: [0, 0, 1, 0]))
        channel.pipeline.fireChannelReadComplete()
        frames = try peer.frames(from: channel)
        let rest = ByteBuffer(bytes: body.dropFirst(10))
        #expect(frames == [.other(.data(streamID: 1, endStream: true, payload: rest, flowControlledLength: body.count - 10))])
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("a stream window made negative by a lowered SETTINGS_INITIAL_WINDOW_SIZE holds the body until it is positive")
    func negativeWindow() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection(), settings: [.init(parameter: 0x4, value: 10)])
        var peer = opened
        try channel.writeInbound(try peer.headers(streamID: 1, fixture.alertRequest(path: "/3/device/abc")))
        try channel.writeInbound(peer.data(streamID: 1, GatewayFixture.alertBody))
        channel.pipeline.fireChannelReadComplete()
        let first = try peer.frames(from: channel)
        #expect(first.last == .other(.data(streamID: 1, endStream: false, payload: ByteBuffer(string: #"{"reason":"#), flowControlledLength: 10)))
        var lower = ByteBuffer()
        lower.writeSettingsFrame([.init(parameter: 0x4, value: 0)])
        try channel.writeInbound(lower)
        try channel.writeInbound(frame(type: 0x8, streamID: 1, payload: [0, 0, 0, 5]))
        channel.pipeline.fireChannelReadComplete()
        #expect(try peer.frames(from: channel) == [.other(.settingsAck)])
        try channel.writeInbound(frame(type: 0x8, streamID: 1, payload: [0, 0, 1, 0]))
        channel.pipeline.fireChannelReadComplete()
        let rest = ByteBuffer(string: #""BadDeviceToken"}"#)
        #expect(try peer.frames(from: channel) == [.other(.data(streamID: 1, endStream: true, payload: rest, flowControlledLength: 17))])
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("once SETTINGS is acknowledged, a stream over MAX_CONCURRENT_STREAMS is refused with REFUSED_STREAM")
    func refusesStreamOverLimit() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection(initialStreams: 1))
        var peer = opened
        var bytes = ByteBuffer()
        bytes.writeSettingsAckFrame()
        bytes.writeImmutableBuffer(try peer.headers(streamID: 1, fixture.alertRequest(path: "/3/device/abc")))
        bytes.writeImmutableBuffer(try peer.headers(streamID: 3, fixture.alertRequest(path: "/3/device/abc")))
        try channel.writeInbound(bytes)
        channel.pipeline.fireChannelReadComplete()
        #expect(try peer.frames(from: channel) == [.other(.rstStream(streamID: 3, errorCode: .refusedStream))])
        // The first stream is still served.
        try channel.writeInbound(peer.data(streamID: 1, GatewayFixture.alertBody))
        channel.pipeline.fireChannelReadComplete()
        let frames = try peer.frames(from: channel)
        #expect(frames.first { !$0.headerFields.isEmpty }?.headerFields[":status"] == "400")
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("ProviderConnectionClosing sends GOAWAY with the reason, finishes the open stream, then closes")
    func goAwayOnClosing() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection())
        var peer = opened
        try channel.writeInbound(try peer.headers(streamID: 1, fixture.alertRequest(path: "/3/device/abc")))
        channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .shutdown))
        let goAway = try peer.frames(from: channel)
        #expect(goAway == [.other(.goAway(lastStreamID: 1, errorCode: .noError, debugData: ByteBuffer(string: #"{"reason":"Shutdown"}"#)))])
        #expect(channel.isActive)
        try channel.writeInbound(peer.data(streamID: 1, GatewayFixture.alertBody))
        let frames = try peer.frames(from: channel)
        #expect(frames.first { !$0.headerFields.isEmpty }?.headerFields[":status"] == "400")
        #expect(!channel.isActive)
        await fixture.stop()
    }

    @Test(
        "protocol faults end the connection with GOAWAY and the matching error code",
        arguments: [
            ([UInt8](), UInt32(2), HTTP2ErrorCode.protocolError),  // even stream id
            ([0x80], UInt32(1), .compressionError),  // HPACK index 0
        ]
    )
    func connectionErrors(block: [UInt8], streamID: UInt32, code: HTTP2ErrorCode) async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection())
        var peer = opened
        try channel.writeInbound(frame(type: 0x1, flags: 0x4 | 0x1, streamID: streamID, payload: block))
        #expect(try peer.frames(from: channel) == [.other(.goAway(lastStreamID: 0, errorCode: code, debugData: ByteBuffer()))])
        #expect(!channel.isActive)
        await fixture.stop()
    }

    @Test("a connection that does not start with the preface is closed without a frame")
    func badPreface() async throws {
        let fixture = try await ProcessorFixture.make()
        let channel = EmbeddedChannel(handler: fixture.connection())
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        _ = try channel.readOutbound(as: ByteBuffer.self)
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(!channel.isActive)
        await fixture.stop()
    }

    @Test("a second ProviderConnectionClosing closes at once, even with an answer waiting for the client's window")
    func secondClosingCloses() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened) = try Self.open(fixture.connection(), settings: [.init(parameter: 0x4, value: 0)])
        var peer = opened
        try channel.writeInbound(try peer.headers(streamID: 1, fixture.alertRequest(path: "/3/device/abc")))
        try channel.writeInbound(peer.data(streamID: 1, GatewayFixture.alertBody))
        channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .idleTimeout))
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .idleTimeout))
        #expect(!channel.isActive)
        let frames = try peer.frames(from: channel)
        let goAway = HTTP2TestPeer.ServerFrame.other(
            .goAway(lastStreamID: 1, errorCode: .noError, debugData: ByteBuffer(string: #"{"reason":"IdleTimeout"}"#))
        )
        #expect(frames.contains(goAway))
        await fixture.stop()
    }

    @Test("a second ProviderConnectionClosing with a commit in flight waits for it: the push is answered 200, then closed")
    func secondClosingWaitsForCommit() async throws {
        let fixture = try await ProcessorFixture.make()
        let (channel, opened, _) = try await Self.openAsync(fixture, maximumStreams: 10)
        var peer = opened
        // The store's writer is held, so the push's commit stays in flight.
        let writerHeld = DispatchSemaphore(value: 0)
        let releaseWriter = DispatchSemaphore(value: 0)
        // Never leave the writer held, even when an expectation below throws.
        defer { releaseWriter.signal() }
        fixture.store.runOnWriterQueue {
            writerHeld.signal()
            releaseWriter.wait()
        }
        writerHeld.wait()
        var request = peer.preface()
        request.writeSettingsAckFrame()
        request.writeImmutableBuffer(try peer.headers(streamID: 1, fixture.alertRequest()))
        request.writeImmutableBuffer(peer.data(streamID: 1, GatewayFixture.alertBody))
        try await channel.writeInbound(request)
        _ = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))  // SETTINGS ACK, limit raised
        try await channel.testingEventLoop.executeInContext {
            channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .idleTimeout))
            channel.pipeline.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .idleTimeout))
        }
        let goAway = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(goAway == [.other(.goAway(lastStreamID: 1, errorCode: .noError, debugData: ByteBuffer(string: #"{"reason":"IdleTimeout"}"#)))])
        #expect(try await channel.testingEventLoop.submit { channel.isActive }.get())
        releaseWriter.signal()
        let answer = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(answer.first?.headerFields[":status"] == "200")
        try await channel.closeFuture.get()
        #expect(try await fixture.store.counts().notifications == 1)
        await fixture.stop()
    }

    /// A connected thread-safe channel (for answers that complete on the store's writer thread) and the server's
    /// opening frames (one stream until the first valid token), before the client's preface.
    static func openAsync(
        _ fixture: ProcessorFixture,
        maximumStreams: Int
    ) async throws -> (NIOAsyncTestingChannel, HTTP2TestPeer, [HTTP2TestPeer.ServerFrame]) {
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(fixture.connection(initialStreams: 1, maximumStreams: maximumStreams))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        var peer = HTTP2TestPeer()
        let opening = try await peer.parse(channel.waitForOutboundWrite(as: ByteBuffer.self))
        return (channel, peer, opening)
    }

    /// A connected channel past the server's opening frames and the client's preface (whose SETTINGS ACK is read).
    static func open(
        _ handler: ProviderHTTP2Connection,
        settings: [HTTP2InboundFrame.Setting] = []
    ) throws -> (EmbeddedChannel, HTTP2TestPeer) {
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var peer = HTTP2TestPeer()
        try channel.writeInbound(peer.preface(settings: settings))
        channel.pipeline.fireChannelReadComplete()
        let frames = try peer.frames(from: channel)
        guard frames.count == 3, frames.last == .other(.settingsAck) else {
            throw HPACKError("unexpected opening frames: \(frames)")
        }
        return (channel, peer)
    }
}
