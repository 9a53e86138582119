import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One answer as a provider sees it.
struct TestResponse: Sendable {
    var status: Int
    var headers: HPACKHeaders
    var body: [UInt8]

    var apnsID: String? { headers.first(name: "apns-id") }
    var uniqueID: String? { headers.first(name: "apns-unique-id") }

    private var json: [String: Any]? {
        guard !body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    var reason: String? { json?["reason"] as? String }
    var timestamp: Int64? { (json?["timestamp"] as? NSNumber)?.int64Value }
}

/// A minimal HTTP/2 client over a real socket, for driving the gateway in tests (tier 3).
final class HTTP2TestClient: Sendable {
    let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let catcher: RootFrameCatcher

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, catcher: RootFrameCatcher) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.catcher = catcher
    }

    /// GOAWAY bodies received so far, as text.
    var receivedGoAways: [String] { catcher.goAways.withLock { $0 } }
    /// SETTINGS the server sent.
    var receivedSettings: [HTTP2Setting] { catcher.settings.withLock { $0 } }

    static func connect(
        host: String = "127.0.0.1",
        port: Int,
        tls: NIOSSLContext? = nil,
        group: any EventLoopGroup
    ) async throws -> HTTP2TestClient {
        let catcher = RootFrameCatcher()
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
            try channel.pipeline.syncOperations.addHandler(catcher)
            return HTTP2TestClient(channel: channel, multiplexer: multiplexer, catcher: catcher)
        }.get()
    }

    /// Sends one request and waits for the whole answer.
    func send(
        method: String = "POST",
        path: String,
        headers: [(String, String)],
        body: [UInt8]?
    ) async throws -> TestResponse {
        let promise = channel.eventLoop.makePromise(of: TestResponse.self)
        let streamPromise = channel.eventLoop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: streamPromise) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
            }
        }
        let stream = try await streamPromise.futureResult.get()
        var fields = HPACKHeaders([(":method", method), (":path", path), (":scheme", "https"), (":authority", "localhost")])
        for (name, value) in headers { fields.add(name: name, value: value) }
        let endHeaders = body == nil
        try await stream.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: fields, endStream: endHeaders))).get()
        if let body {
            let buffer = stream.allocator.buffer(bytes: body)
            try await stream.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer), endStream: true))).get()
        }
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .goAway(_, _, let opaque):
            let text = opaque.map { String(buffer: $0) } ?? ""
            goAways.withLock { $0.append(text) }
        case .settings(.settings(let values)):
            settings.withLock { $0.append(contentsOf: values) }
        default:
            break
        }
        context.fireChannelRead(data)
    }
}
