import Foundation
import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `send` reads about a connection without hopping to its event loop.
final class APNSClientConnectionStatus: Sendable {
    private let usable = Atomic<Bool>(true)
    private let limit = Atomic<Int>(0)

    /// Whether new requests may go on this connection (not after GOAWAY, close, or a shutdown).
    var isUsable: Bool { usable.load(ordering: .relaxed) }

    func markUnusable() { usable.store(false, ordering: .relaxed) }

    /// The server's latest `SETTINGS_MAX_CONCURRENT_STREAMS` (0 before its first SETTINGS).
    var streamLimit: Int {
        get { limit.load(ordering: .relaxed) }
        set { limit.store(newValue, ordering: .relaxed) }
    }
}

/// One HTTP/2 connection to the server, shared by every `send` until it goes away.
final class APNSClientConnection: Sendable {
    let channel: any Channel
    let status: APNSClientConnectionStatus
    private let handler: NIOLoopBound<APNSClientConnectionHandler>

    private init(channel: any Channel, status: APNSClientConnectionStatus, handler: NIOLoopBound<APNSClientConnectionHandler>) {
        self.channel = channel
        self.status = status
        self.handler = handler
    }

    /// Hands a request to the connection; its continuation is resumed with the answer or an error.
    func submit(
        _ request: EncodedRequest,
        continuation: CheckedContinuation<APNSAnswer, any Error>,
        id: UInt64,
        deadline: NIODeadline
    ) {
        let handler = self.handler
        let pending = PendingRequest(encoded: request, continuation: continuation)
        channel.eventLoop.execute { handler.value.submit(pending, id: id, deadline: deadline) }
    }

    /// Gives up on request `id` (its task was cancelled).
    func cancel(id: UInt64) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.cancel(id: id) }
    }

    /// Lets the requests in flight finish (each has a deadline), then says GOAWAY and closes; returns when closed.
    func closeWhenDone() async {
        status.markUnusable()
        let handler = self.handler
        channel.eventLoop.execute { handler.value.closeWhenDone() }
        try? await channel.closeFuture.get()
    }

    /// Connects: TCP, then TLS with ALPN `h2` (or nothing for h2c), then waits for the server's first SETTINGS.
    ///
    /// Every step shares one deadline, `connectTimeout`. Fails with ``APNSProviderClientError/connectFailed`` or
    /// ``APNSProviderClientError/connectTimeout``.
    static func connect(
        to endpoint: APNSProviderClient.Endpoint,
        tls: NIOSSLContext?,
        pinnedCertificate: NIOSSLCertificate? = nil,
        connectTimeout: Duration,
        group: any EventLoopGroup,
        logger: Logger
    ) -> EventLoopFuture<APNSClientConnection> {
        let eventLoop = group.next()
        let ready = eventLoop.makePromise(of: Void.self)
        let status = APNSClientConnectionStatus()
        let timeout = TimeAmount(connectTimeout)
        let deadline = eventLoop.scheduleTask(in: timeout) {
            ready.fail(APNSProviderClientError.connectTimeout.with("\(endpoint) was not ready within \(connectTimeout)"))
        }
        // SNI and certificate verification use the host name; for an address, NIOSSL verifies the peer's address.
        let serverHostname = endpoint.isIPAddress ? nil : endpoint.host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls, let pinnedCertificate {
                        // The pinned certificate replaces chain and name verification: the server must present it.
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: serverHostname) { chain, verified in
                            verified.succeed(chain.first == pinnedCertificate ? .certificateVerified : .failed)
                        }
                        try sync.addHandler(handler)
                    } else if let tls {
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    try sync.addHandler(NIOHTTP2Handler(mode: .client, initialSettings: clientSettings))
                    try sync.addHandler(APNSClientConnectionHandler(ready: ready, status: status, logger: logger))
                }
            }
        let connected = bootstrap.connect(host: endpoint.host, port: endpoint.port).flatMap { channel in
            ready.futureResult.flatMapThrowing {
                let handler = try channel.pipeline.syncOperations.handler(type: APNSClientConnectionHandler.self)
                logger.debug("Connected", metadata: ["apns.endpoint": "\(endpoint)", "apns.streams": "\(status.streamLimit)"])
                return APNSClientConnection(channel: channel, status: status, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            }.flatMapError { error in
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        return connected.flatMapErrorThrowing { error in
            // The connect itself failed: the handler never ran, so `ready` is still open.
            ready.fail(error)
            throw Self.connectError(error, endpoint: endpoint)
        }.always { _ in
            deadline.cancel()
        }
    }

    /// One error for the caller: what failed, and where.
    private static func connectError(_ error: any Error, endpoint: APNSProviderClient.Endpoint) -> APNSProviderClientError {
        if let error = error as? APNSProviderClientError {
            return error == .connectFailed ? .connectFailed.with("\(endpoint): \(error.detail)") : error
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return .connectTimeout.with("\(endpoint)")
        }
        if let error = error as? NIOConnectionError, let last = error.connectionErrors.last {
            return .connectFailed.with("\(endpoint): \(describe(last.error))")
        }
        return .connectFailed.with("\(endpoint): \(describe(error))")
    }

    /// A short reason for people: `Connection refused` rather than
    /// `connection reset (error set): Connection refused (errno: 111)`, the TLS failure's name rather than BoringSSL's
    /// error stack.
    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        let text = "\(error)"
        if error is NIOSSLError {
            if let range = text.range(of: #"OPENSSL_internal:[A-Z0-9_]+"#, options: .regularExpression) {
                let name = text[range].dropFirst("OPENSSL_internal:".count)
                let hint = name == "CERTIFICATE_VERIFY_FAILED" ? " (the server's certificate is not from a trusted CA)" : ""
                return "TLS handshake failed: \(name)\(hint)"
            }
            if text.contains("EOF during handshake") {
                return "TLS handshake failed: the server closed the connection (is it a TLS port?)"
            }
        }
        return text
    }

    /// What the client tells the server: no server push, room for answers.
    private static let clientSettings: HTTP2Settings = [
        HTTP2Setting(parameter: .enablePush, value: 0),
        HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
        HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
        HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
    ]
}

extension APNSProviderClient.Endpoint {
    /// Whether the host is an IPv4 or IPv6 address rather than a name.
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: host, port: port)) != nil
    }
}
