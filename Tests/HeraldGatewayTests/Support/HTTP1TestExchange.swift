import Foundation
import HeraldTestSupport
import NIOCore
import NIOPosix
import Synchronization

/// One HTTP/1.1 answer as read off the wire.
struct HTTP1TestResponse: Sendable {
    /// The status line, e.g. `HTTP/1.1 200 OK`.
    var statusLine: String
    var status: Int
    /// Header names in lower case.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    var reason: String? {
        guard !body.isEmpty, let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return json["reason"] as? String
    }
}

/// Writes raw HTTP/1.1 request text to a socket and reads every answer until the server closes (tier 3).
///
/// Raw bytes rather than an HTTP client, so that the test controls exactly what is sent (pipelining, `connection`).
enum HTTP1TestExchange {
    /// The text of one request; `close` asks the server to close after answering.
    static func request(path: String, headers: [(String, String)], body: [UInt8], close: Bool) -> [UInt8] {
        var text = "POST \(path) HTTP/1.1\r\nhost: localhost\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "content-length: \(body.count)\r\n"
        if close { text += "connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// Sends `bytes` at once and returns the answers read until the server closes the connection.
    static func exchange(
        _ bytes: [UInt8],
        port: Int,
        group: any EventLoopGroup,
        deadline: TimeAmount = .seconds(10)
    ) async throws -> [HTTP1TestResponse] {
        let collector = ByteCollector()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get(within: deadline)
        do {
            try await channel.closeFuture.get(within: deadline)
        } catch {
            try? await channel.close()
            throw error
        }
        return try parse(collector.bytes.withLock { $0 })
    }

    /// Splits a byte stream into responses framed by `content-length`.
    static func parse(_ bytes: [UInt8]) throws -> [HTTP1TestResponse] {
        var responses: [HTTP1TestResponse] = []
        var rest = bytes[...]
        let separator = Array("\r\n\r\n".utf8)
        while !rest.isEmpty {
            guard let end = rest.firstRange(of: separator) else { throw MalformedHTTP1Response() }
            let lines = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0]
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[1]) else { throw MalformedHTTP1Response() }
            let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
            let bodyStart = end.upperBound
            guard rest.endIndex - bodyStart >= length else { throw MalformedHTTP1Response() }
            let body = Array(rest[bodyStart..<(bodyStart + length)])
            responses.append(HTTP1TestResponse(statusLine: statusLine, status: status, headers: headers, body: body))
            rest = rest[(bodyStart + length)...]
        }
        return responses
    }
}

struct MalformedHTTP1Response: Error {}

private final class ByteCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let bytes = Mutex<[UInt8]>([])

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
    }
}
