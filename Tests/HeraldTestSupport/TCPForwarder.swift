import Foundation

/// A TCP forwarder on a loopback port that a test can cut and restore: a database or server "going away" and coming
/// back, without stopping it (every other test keeps using it).
///
/// ``cut()`` drops every forwarded connection and refuses new ones (the port stops listening); ``restore()`` listens on
/// the same port again. Plain sockets and one thread per direction: it carries a test's few connections.
public final class TCPForwarder: @unchecked Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let targetPort: Int
    private let lock = NSLock()
    private var listener: Int32 = -1
    /// The connections' sockets (both ends), for ``cut()``; their copy threads close them.
    private var connected: Set<Int32> = []

    /// Listens on a free loopback port and forwards each connection to `127.0.0.1:targetPort`.
    public init(toLoopbackPort targetPort: Int) throws {
        self.targetPort = targetPort
        let (descriptor, port) = try LoopbackListener.open(backlog: 64)
        self.port = Int(port)
        listener = descriptor
        startAccepting(descriptor)
    }

    /// Drops every forwarded connection and stops listening: connecting is refused until ``restore()``.
    public func cut() {
        lock.lock()
        let listening = listener
        listener = -1
        let sockets = connected
        lock.unlock()
        if listening >= 0 {
            _ = shutdown(listening, Int32(SHUT_RDWR))
            _ = close(listening)
        }
        for socket in sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Listens on the same port again.
    public func restore() throws {
        let (descriptor, _) = try LoopbackListener.open(port: port, backlog: 64)
        lock.lock()
        listener = descriptor
        lock.unlock()
        startAccepting(descriptor)
    }

    deinit { cut() }

    private func startAccepting(_ descriptor: Int32) {
        let thread = Thread { [weak self] in
            while true {
                let client = accept(descriptor, nil, nil)
                guard client >= 0 else { return }
                guard let self else {
                    _ = close(client)
                    return
                }
                self.forward(client)
            }
        }
        thread.start()
    }

    private func forward(_ client: Int32) {
        guard let upstream = try? Self.connectLoopback(port: targetPort) else {
            _ = close(client)
            return
        }
        lock.lock()
        connected.insert(client)
        connected.insert(upstream)
        lock.unlock()
        let pair = Pair(client: client, upstream: upstream)
        for (from, to) in [(client, upstream), (upstream, client)] {
            Thread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    var sent = 0
                    while sent < count {
                        let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + sent, count - sent) }
                        if written <= 0 { break }
                        sent += written
                    }
                    if sent < count { break }
                }
                _ = shutdown(from, Int32(SHUT_RDWR))
                _ = shutdown(to, Int32(SHUT_RDWR))
                if pair.directionEnded() { self.closePair(pair) }
            }.start()
        }
    }

    /// Both ends of a forwarded connection; closed once both directions ended.
    private final class Pair: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        private let lock = NSLock()
        private var ended = 0

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }

        /// Whether this was the second direction to end.
        func directionEnded() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            ended += 1
            return ended == 2
        }
    }

    private func closePair(_ pair: Pair) {
        lock.lock()
        connected.remove(pair.client)
        connected.remove(pair.upstream)
        lock.unlock()
        _ = close(pair.client)
        _ = close(pair.upstream)
    }

    private static func connectLoopback(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            _ = close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
        return descriptor
    }
}
