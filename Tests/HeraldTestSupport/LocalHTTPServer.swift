import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 and an ephemeral port, on a POSIX socket, for tests that
/// need a real HTTP peer. It serves fixed bodies by path and closes each connection.
public final class LocalHTTPServer: Sendable {
    /// What one path answers.
    public struct Route: Sendable {
        public var status: Int
        public var contentType: String
        public var body: Data

        /// Creates a route.
        public init(status: Int, contentType: String, body: Data) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// The port it listens on.
    public let port: UInt16
    private let socketFD: Int32
    private let requests = RequestLog()

    /// Starts serving `routes` (by path) on a new thread.
    public init(routes: [String: Route]) throws {
        let (fd, port) = try LoopbackListener.open()
        self.port = port
        socketFD = fd
        let requests = requests
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                Self.serve(client, routes: routes, requests: requests)
            }
        }
    }

    /// The paths requested so far.
    public var requestedPaths: [String] { requests.paths.withLock { $0 } }

    /// Stops accepting connections.
    public func stop() {
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    private static func serve(_ client: Int32, routes: [String: Route], requests: RequestLog) {
        defer { close(client) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65_536 {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let requestLine = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        requests.paths.withLock { $0.append(path) }
        let route = routes[path] ?? Route(status: 404, contentType: "text/plain", body: Data("not found".utf8))
        let head =
            "HTTP/1.1 \(route.status) \(route.status == 200 ? "OK" : "Not Found")\r\nContent-Type: \(route.contentType)\r\n"
            + "Content-Length: \(route.body.count)\r\nConnection: close\r\n\r\n"
        let response = [UInt8](Data(head.utf8) + route.body)
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
    }
}

/// The paths a ``LocalHTTPServer`` was asked for.
final class RequestLog: Sendable {
    let paths = Mutex<[String]>([])
}
