import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One answer as a provider sees it.
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: HPACKHeaders
    public var body: [UInt8]

    public var apnsID: String? { headers.first(name: "apns-id") }
    public var uniqueID: String? { headers.first(name: "apns-unique-id") }

    private var json: [String: Any]? {
        guard !body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    public var reason: String? { json?["reason"] as? String }
    public var timestamp: Int64? { (json?["timestamp"] as? NSNumber)?.int64Value }
}

/// A minimal HTTP/2 client over a real socket, for driving the gateway in tests (tier 3).
public final class HTTP2TestClient: Sendable {
    public let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let catcher: RootFrameCatcher

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, catcher: RootFrameCatcher) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.catcher = catcher
    }

    /// GOAWAY bodies received so far, as text.
    public var receivedGoAways: [String] { catcher.goAways.withLock { $0 } }
    /// SETTINGS the server sent.
    public var receivedSettings: [HTTP2Setting] { catcher.settings.withLock { $0 } }
    /// The SETTINGS_MAX_CONCURRENT_STREAMS values the server sent, in order.
    public var receivedMaxConcurrentStreams: [Int] { receivedSettings.filter { $0.parameter == .maxConcurrentStreams }.map(\.value) }
    /// The body of the first GOAWAY, once one arrives; fails if the connection closes without one.
    public var firstGoAway: EventLoopFuture<String> { catcher.firstGoAway.futureResult }
    /// Completes when the connection is closed.
    public var closed: EventLoopFuture<Void> { channel.closeFuture }

    public static func connect(
        host: String = "127.0.0.1",
        port: Int,
        tls: NIOSSLContext? = nil,
        group: any EventLoopGroup
    ) async throws -> HTTP2TestClient {
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: "localhost"))
                    }
                }
            }
            .connect(host: host, port: port).get()
        return try await channel.eventLoop.submit {
            let multiplexer = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                mode: .client,
                connectionConfiguration: .init(),
                streamConfiguration: .init()
            ) { stream in
                stream.eventLoop.makeSucceededVoidFuture()
            }
            let catcher = RootFrameCatcher(firstGoAway: channel.eventLoop.makePromise())
            try channel.pipeline.syncOperations.addHandler(catcher)
            return HTTP2TestClient(channel: channel, multiplexer: multiplexer, catcher: catcher)
        }.get()
    }

    /// Sends one request and waits for the whole answer (at most `deadline`).
    public func send(
        method: String = "POST",
        path: String,
        headers: [(String, String)],
        body: [UInt8]?,
        deadline: TimeAmount = .seconds(10)
    ) async throws -> TestResponse {
        let request = try await open(method: method, path: path, headers: headers, endStream: body == nil, deadline: deadline)
        if let body {
            do {
                try await request.finish(body: body, deadline: deadline)
            } catch {
                // RFC 9113 §8.1: a server may answer before the request ends and stop it with RST_STREAM NO_ERROR (Herald
                // does for a body past every push type's limit); the answer stands, and a client must not discard it.
                guard let response = try? await request.response.get(within: deadline) else { throw error }
                return response
            }
        }
        return try await request.response.get(within: deadline)
    }

    /// Opens a stream and sends the request's HEADERS; the body follows with ``PendingRequest/finish(body:deadline:)``
    /// unless `endStream` ended the request already.
    public func open(
        method: String = "POST",
        path: String,
        headers: [(String, String)],
        endStream: Bool = false,
        deadline: TimeAmount = .seconds(10)
    ) async throws -> PendingRequest {
        let promise = channel.eventLoop.makePromise(of: TestResponse.self)
        let streamPromise = channel.eventLoop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: streamPromise) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
            }
        }
        let stream = try await streamPromise.futureResult.get(within: deadline)
        var fields = HPACKHeaders([(":method", method), (":path", path), (":scheme", "https"), (":authority", "localhost")])
        for (name, value) in headers { fields.add(name: name, value: value) }
        try await stream.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: fields, endStream: endStream))).get(within: deadline)
        return PendingRequest(stream: stream, response: promise.futureResult)
    }

    /// Sends a PING and waits for its ACK: once it arrives, the server has read every frame sent before it.
    public func ping(deadline: TimeAmount = .seconds(10)) async throws {
        let acknowledged = channel.eventLoop.makePromise(of: Void.self)
        let data = HTTP2PingData(withInteger: UInt64.random(in: 1...UInt64.max))
        catcher.expectPingAck(data, promise: acknowledged)
        try await channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .ping(data, ack: false))).get(within: deadline)
        try await acknowledged.futureResult.get(within: deadline)
    }

    public func close() async {
        try? await channel.close()
    }
}

/// A request whose HEADERS were sent and whose body is still to come.
public struct PendingRequest: Sendable {
    public let stream: any Channel
    /// The answer, once the server sends it.
    public let response: EventLoopFuture<TestResponse>

    /// Sends the body in one DATA frame with END_STREAM.
    public func finish(body: [UInt8], deadline: TimeAmount = .seconds(10)) async throws {
        let buffer = stream.allocator.buffer(bytes: body)
        try await stream.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer), endStream: true))).get(within: deadline)
    }
}

extension EventLoopFuture where Value: Sendable {
    /// Waits for the value, failing with ``WaitTimedOut`` after `deadline` (every wait in a test has one).
    public func get(within deadline: TimeAmount) async throws -> Value {
        let bounded = eventLoop.makePromise(of: Value.self)
        let timeout = eventLoop.scheduleTask(in: deadline) {
            bounded.fail(WaitTimedOut("the deadline (\(deadline)) passed before the event happened"))
        }
        whenComplete { result in
            timeout.cancel()
            bounded.completeWith(result)
        }
        return try await bounded.futureResult.get()
    }
}

private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let promise: EventLoopPromise<TestResponse>
    private var headers: HPACKHeaders?
    private var body: [UInt8] = []
    private var done = false

    init(promise: EventLoopPromise<TestResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if headers == nil { headers = frame.headers }
            if frame.endStream { finish() }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data { body.append(contentsOf: buffer.readableBytesView) }
            if frame.endStream { finish() }
        default:
            break
        }
    }

    private func finish() {
        guard !done, let headers else { return }
        done = true
        let status = Int(headers.first(name: ":status") ?? "") ?? 0
        promise.succeed(TestResponse(status: status, headers: headers, body: body))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(ChannelError.eof)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
    }
}

private final class RootFrameCatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame

    let goAways = Mutex<[String]>([])
    let settings = Mutex<[HTTP2Setting]>([])
    let firstGoAway: EventLoopPromise<String>
    private let pingAcks = Mutex<[HTTP2PingData: EventLoopPromise<Void>]>([:])

    init(firstGoAway: EventLoopPromise<String>) {
        self.firstGoAway = firstGoAway
    }

    func expectPingAck(_ data: HTTP2PingData, promise: EventLoopPromise<Void>) {
        pingAcks.withLock { $0[data] = promise }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .goAway(_, _, let opaque):
            let text = opaque.map { String(buffer: $0) } ?? ""
            goAways.withLock { $0.append(text) }
            firstGoAway.succeed(text)
        case .settings(.settings(let values)):
            settings.withLock { $0.append(contentsOf: values) }
        case .ping(let ping, ack: true):
            pingAcks.withLock { $0.removeValue(forKey: ping) }?.succeed(())
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        firstGoAway.fail(ChannelError.eof)
        let waiting = pingAcks.withLock { acks in
            defer { acks = [:] }
            return Array(acks.values)
        }
        for promise in waiting { promise.fail(ChannelError.eof) }
        context.fireChannelInactive()
    }
}
