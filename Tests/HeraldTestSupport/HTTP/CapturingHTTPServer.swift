import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 and an ephemeral port that records each request as it came (method, path,
/// headers in order, body) and answers what `respond` decides, one request per connection: a web push endpoint for
/// the tests of what a provider sends (`herald send --web-push`, pywebpush).
///
/// ``LocalHTTPServer`` serves fixed bodies and records only paths; a web push is judged by its headers and body.
/// Limits: a request head of at most ``maximumHeadLength`` bytes, a body of at most ``maximumBodyLength`` (by
/// `Content-Length`; chunked bodies are answered 411), and ``readTimeoutSeconds`` per read, so a stuck client cannot hold
/// the accept loop.
public final class CapturingHTTPServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Header names and values in the order received, names as sent.
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The values of the header `name`, in any case.
        public func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// The first value of the header `name`, in any case.
        public func value(_ name: String) -> String? { values(name).first }
    }

    /// What the server answers.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: String

        /// An answer.
        public init(status: Int, headers: [(name: String, value: String)] = [], body: String = "") {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    public static let maximumHeadLength = 65_536
    public static let maximumBodyLength = 1_048_576
    public static let readTimeoutSeconds = 10

    /// The port it listens on.
    public let port: UInt16
    private let socketFD: Int32
    private let received = Received()
    private let stopped = Mutex(false)

    /// `http://127.0.0.1:<port>`: the origin of every endpoint it serves, what VAPID's `aud` names.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// The requests received so far, in order.
    public var requests: [Request] { received.requests.withLock { $0 } }

    /// Starts serving on a new thread, giving every request the same answer.
    public convenience init(answer: Answer) throws {
        try self.init { _, _ in answer }
    }

    /// Starts serving on a new thread; `respond` is given each request and the server's origin.
    public init(respond: @escaping @Sendable (Request, _ origin: String) -> Answer) throws {
        let (fd, port) = try LoopbackListener.open()
        self.port = port
        socketFD = fd
        let received = received
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                Self.serve(client, origin: "http://127.0.0.1:\(port)", received: received, respond: respond)
            }
        }
    }

    /// Stops accepting connections; again, does nothing (the socket's number may be another's by then).
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    private static func serve(
        _ client: Int32,
        origin: String,
        received: Received,
        respond: @Sendable (Request, String) -> Answer
    ) {
        defer { close(client) }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let answer: Answer
        switch read(client) {
        case .request(let request):
            received.requests.withLock { $0.append(request) }
            answer = respond(request, origin)
        case .refused(let problem):
            answer = problem
        }
        write(answer, to: client)
    }

    /// A request read, or the answer that says why it could not be.
    private enum Reading {
        case request(Request)
        case refused(Answer)
    }

    /// The requests received, shared with the accepting thread.
    private final class Received: Sendable {
        let requests = Mutex<[Request]>([])
    }

    /// Reads one request, or the answer that says why it cannot be read.
    private static func read(_ client: Int32) -> Reading {
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            guard bytes.count <= maximumHeadLength else { return .refused(Answer(status: 431, body: "request head too large")) }
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return .refused(Answer(status: 400, body: "connection ended inside the request head")) }
            bytes += buffer[0..<count]
            headEnd = bytes.firstRange(of: terminator)?.lowerBound
        }
        guard let headEnd else { return .refused(Answer(status: 400, body: "no request head")) }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return .refused(Answer(status: 400, body: "bad request line")) }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .refused(Answer(status: 400, body: "bad header line")) }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: [])
        if !request.values("transfer-encoding").isEmpty { return .refused(Answer(status: 411, body: "send Content-Length")) }
        let declared = request.values("content-length")
        guard declared.count <= 1, let length = Int(declared.first ?? "0"), length >= 0 else {
            return .refused(Answer(status: 400, body: "bad Content-Length"))
        }
        guard length <= maximumBodyLength else { return .refused(Answer(status: 413, body: "body over \(maximumBodyLength) bytes")) }
        var body = Array(bytes[(headEnd + terminator.count)...])
        while body.count < length {
            let count = recv(client, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { return .refused(Answer(status: 400, body: "connection ended inside the body")) }
            body += buffer[0..<count]
        }
        request.body = Array(body.prefix(length))
        return .request(request)
    }

    private static func write(_ answer: Answer, to client: Int32) {
        let body = Array(answer.body.utf8)
        var head = "HTTP/1.1 \(answer.status) \(answer.status < 300 ? "OK" : "Refused")\r\n"
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + body
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
    }
}
