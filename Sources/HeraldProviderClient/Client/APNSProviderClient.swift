import HeraldAuth
import HeraldCore
import Logging
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL
import Synchronization

/// An APNs provider client: sends notifications to Apple's provider API, or to Herald's, over one HTTP/2
/// connection shared by every concurrent `send`; it also manages broadcast channels and sends broadcasts to them
/// (``createChannel(bundleID:storagePolicy:requestID:)``, ``broadcast(_:)``, docs/broadcast.md).
///
/// - The connection opens on the first `send` (or ``connect()``) and is opened again when the server closes it.
///   Concurrent requests share it up to the server's `SETTINGS_MAX_CONCURRENT_STREAMS`; the rest wait, in order.
/// - Token authentication signs a JWT (ES256) and re-signs it every ``Configuration/tokenRefreshInterval``
///   (50 minutes by default), never more often than every 20 minutes (spec §A.7).
/// - Every wait has a deadline: ``Configuration/connectTimeout`` and ``Configuration/responseTimeout``.
/// - Call ``shutdown()`` when done: it lets requests in flight finish, then closes the connection.
///
/// ```swift
/// let client = try APNSProviderClient(configuration: .init(
///     endpoint: .init(url: "https://localhost:2197")!, authentication: .token(key)))
/// let response = try await client.send(APNSRequest(deviceToken: token, payload: payload, topic: "com.example.app"))
/// await client.shutdown()
/// ```
public final class APNSProviderClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: Configuration

    private enum State {
        case idle
        case connecting(EventLoopFuture<APNSClientConnection>)
        case connected(APNSClientConnection)
        case shutDown
    }

    private let group: any EventLoopGroup
    private let clock: any WallClock
    private let logger: Logger
    private let tls: NIOSSLContext?
    private let pinnedCertificate: NIOSSLCertificate?
    private let tokens: Mutex<SignedTokenCache>?
    private let state = Mutex(State.idle)
    private let requestIDs = Atomic<UInt64>(0)
    let scheme: String
    let authority: String

    /// Makes a client; it connects on first use.
    ///
    /// - Parameters:
    ///   - configuration: where to connect and how to authenticate.
    ///   - eventLoopGroup: where the connection runs; NIO's shared group by default.
    ///   - clock: the time for signing provider tokens; tests inject a `ManualWallClock`.
    ///   - logger: connection events at debug level.
    /// - Throws: ``APNSProviderClientError/invalidConfiguration`` for unreadable trust roots, certificates or keys,
    ///   certificate authentication without TLS, or a token refresh interval outside 20–60 minutes.
    public init(
        configuration: Configuration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: any WallClock = SystemWallClock(),
        logger: Logger = Logger(label: "herald.provider-client")
    ) throws(APNSProviderClientError) {
        self.configuration = configuration
        self.group = eventLoopGroup
        self.clock = clock
        self.logger = logger
        self.scheme = configuration.endpoint.usesTLS ? "https" : "http"
        self.authority = configuration.endpoint.authority
        switch configuration.authentication {
        case .token(let key):
            let interval = configuration.tokenRefreshInterval
            guard interval >= .seconds(20 * 60), interval <= .seconds(60 * 60) else {
                throw .invalidConfiguration.with("the token refresh interval must be 20 to 60 minutes, not \(interval)")
            }
            tokens = Mutex(SignedTokenCache(key: key, refreshAge: interval.components.seconds))
        case .certificate:
            guard configuration.endpoint.usesTLS else {
                throw .invalidConfiguration.with("certificate authentication needs TLS (https://)")
            }
            tokens = nil
        case .none:
            tokens = nil
        }
        tls = configuration.endpoint.usesTLS ? try Self.makeTLSContext(configuration) : nil
        pinnedCertificate = try configuration.pinnedServerCertificateFile.map(Self.loadPinnedCertificate)
    }

    deinit {
        if case .connected(let connection) = state.withLock({ $0 }) { connection.channel.close(promise: nil) }
    }

    /// Opens the connection now rather than on the first `send`, and waits until the server is ready.
    ///
    /// - Throws: ``APNSProviderClientError/connectFailed``, ``APNSProviderClientError/connectTimeout`` or
    ///   ``APNSProviderClientError/shutDown``.
    public func connect() async throws {
        _ = try await connection()
    }

    /// Sends one notification and waits for the server's answer.
    ///
    /// A request that never reached the server (the connection went away first) is sent once more on a new
    /// connection. Cancelling the calling task abandons the request (its stream is reset) with `CancellationError`.
    ///
    /// - Returns: the answer, whatever its status, with the measured latency.
    /// - Throws: ``APNSProviderClientError`` when there is no answer: ``APNSProviderClientError/responseTimeout``,
    ///   ``APNSProviderClientError/connectionClosed``, a connect failure, …
    public func send(_ request: APNSRequest) async throws -> APNSResponse {
        APNSResponse(try await exchange(payload: request.payload) { try headers(for: request, authorization: $0) })
    }

    /// One request and its answer, for every API the client speaks: signs the provider token, builds the header
    /// block with `headers` (given the `authorization` value), sends once more a request that never reached the server,
    /// and forgets a token the server found expired.
    func exchange(
        payload: [UInt8],
        responseBodyLimit: Int = maximumResponseBodySize,
        headers: (_ authorization: String?) throws -> HPACKHeaders
    ) async throws -> APNSAnswer {
        let startedAt = NIODeadline.now()
        let deadline = startedAt + TimeAmount(configuration.responseTimeout)
        let authorization = tokens?.withLock { $0.authorization(now: clock.nowSeconds()) }
        let encoded = EncodedRequest(
            headers: try headers(authorization),
            body: payload.isEmpty ? nil : ByteBuffer(bytes: payload),
            startedAt: startedAt,
            responseBodyLimit: responseBodyLimit
        )
        var retried = false
        while true {
            try Task.checkCancellation()
            let connection = try await self.connection()
            do {
                let answer = try await send(encoded, deadline: deadline, on: connection)
                if answer.reason == .expiredProviderToken, let authorization {
                    tokens?.withLock { $0.tokenExpired(header: authorization) }
                }
                return answer
            } catch let error as APNSProviderClientError where error == .requestNotSent && !retried {
                retried = true
                logger.debug("Sending again on a new connection", metadata: ["apns.error": "\(error)"])
            }
        }
    }

    private func send(_ request: EncodedRequest, deadline: NIODeadline, on connection: APNSClientConnection) async throws -> APNSAnswer {
        let id = requestIDs.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                connection.submit(request, continuation: continuation, id: id, deadline: deadline)
            }
        } onCancel: {
            connection.cancel(id: id)
        }
    }

    /// The server's current `SETTINGS_MAX_CONCURRENT_STREAMS` on the open connection; `nil` when none is open.
    ///
    /// A load generator keeps at most this many requests in flight (more would only wait inside the client).
    public var concurrentStreamLimit: Int? {
        guard case .connected(let connection) = state.withLock({ $0 }), connection.status.isUsable else { return nil }
        return connection.status.streamLimit
    }

    /// Stops taking requests (later calls throw ``APNSProviderClientError/shutDown``), lets those in flight finish
    /// (each within its deadline), then closes the connection. The event loop group is the caller's to shut down.
    public func shutdown() async {
        let previous = state.withLock { state in
            defer { state = .shutDown }
            return state
        }
        switch previous {
        case .connected(let connection):
            await connection.closeWhenDone()
        case .connecting(let pending):
            if let connection = try? await pending.get() { await connection.closeWhenDone() }
        case .idle, .shutDown:
            break
        }
    }

    // MARK: The connection

    private func connection() async throws -> APNSClientConnection {
        enum Next {
            case use(APNSClientConnection)
            case wait(EventLoopFuture<APNSClientConnection>)
            case shutDown
        }
        let next = state.withLock { state -> Next in
            switch state {
            case .connected(let connection) where connection.status.isUsable:
                return .use(connection)
            case .connecting(let pending):
                return .wait(pending)
            case .shutDown:
                return .shutDown
            case .idle, .connected:
                let pending = startConnecting()
                state = .connecting(pending)
                return .wait(pending)
            }
        }
        switch next {
        case .use(let connection): return connection
        case .wait(let pending): return try await pending.get()
        case .shutDown: throw APNSProviderClientError.shutDown
        }
    }

    /// Starts a connection; when it completes the state records it (or forgets the failure, so the next call tries
    /// again). Called with the state locked.
    private func startConnecting() -> EventLoopFuture<APNSClientConnection> {
        let pending = APNSClientConnection.connect(
            to: configuration.endpoint,
            tls: tls,
            pinnedCertificate: pinnedCertificate,
            connectTimeout: configuration.connectTimeout,
            group: group,
            logger: logger
        )
        pending.whenComplete { result in
            let orphan: APNSClientConnection? = self.state.withLock { state in
                guard case .connecting(let current) = state, current === pending else {
                    // Shut down while connecting: nobody will use this connection.
                    return try? result.get()
                }
                switch result {
                case .success(let connection): state = .connected(connection)
                case .failure: state = .idle
                }
                return nil
            }
            orphan?.channel.close(promise: nil)
        }
        return pending
    }
}
