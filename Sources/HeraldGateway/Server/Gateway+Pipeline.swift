import HeraldCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension Gateway {
    /// The listener bootstrap: TLS (optional), then protocol sniffing, then HTTP/2 or HTTP/1.1.
    nonisolated func bootstrap(tls: NIOSSLContext?) -> ServerBootstrap {
        bootstrap(tls: tls, group: group, processor: processor, registry: connections, logger: logger)
    }

    private nonisolated func bootstrap(
        tls: NIOSSLContext?,
        group: MultiThreadedEventLoopGroup,
        processor: ProviderRequestProcessor,
        registry: ConnectionRegistry,
        logger: Logger
    ) -> ServerBootstrap {
        let configuration = self.configuration
        let limits = configuration.limits
        let metrics = processor.metrics
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let admitted = registry.admit(channel, limit: limits.maximumConnections) {
                        logger.info(
                            "provider connection limit reached: new connections are closed until some end",
                            metadata: ["gateway.max_connections": "\(limits.maximumConnections)"]
                        )
                    }
                    guard admitted else {
                        metrics.connectionLimitRefusals.increment()
                        processor.closureLog.record(
                            .init(error: "connection limit", limit: "maximumConnections=\(limits.maximumConnections)"),
                            peer: channel.remoteAddress
                        )
                        channel.close(promise: nil)
                        return
                    }
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    // From the start, so that a connection that never completes TLS or never speaks is closed too.
                    try sync.addHandler(IdleStateHandler(allTimeout: configuration.idleTimeout))
                    try sync.addHandler(IdleTimeoutHandler())
                    try sync.addHandler(
                        ProtocolSniffer(
                            handshakeTimeout: limits.handshakeTimeout,
                            timedOut: {
                                metrics.handshakeTimeouts.increment()
                                processor.closureLog.record(
                                    .init(error: "handshake timeout", limit: "handshakeTimeout=\(limits.handshakeTimeout.nanoseconds / 1_000_000)ms"),
                                    peer: channel.remoteAddress
                                )
                            },
                            configure: { wire, context in
                                try Self.configure(wire, context: context, processor: processor, configuration: configuration)
                            }
                        )
                    )
                }
            }
    }

    private static func configure(
        _ wire: ProtocolSniffer.WireProtocol,
        context: ChannelHandlerContext,
        processor: ProviderRequestProcessor,
        configuration: GatewayConfiguration
    ) throws {
        let sync = context.pipeline.syncOperations
        let tlsHandler = try? sync.handler(type: NIOSSLServerHandler.self)
        let certificate = tlsHandler?.peerCertificate
        let connection = processor.makeConnectionState(clientCertificateDER: try certificate?.toDERBytes(), isTLS: tlsHandler != nil)
        switch wire {
        case .http2:
            // Spec §A.1: with token auth, one stream until a request carries a valid token.
            let initialStreams = connection.isAuthenticated ? configuration.maximumConcurrentStreams : configuration.initialConcurrentStreams
            let handlers: [any ChannelHandler] = [
                ProviderHTTP2Connection(
                    processor: processor,
                    connection: connection,
                    initialConcurrentStreams: initialStreams,
                    maximumConcurrentStreams: configuration.maximumConcurrentStreams,
                    limits: configuration.limits
                )
            ]
            try insert(handlers, after: context.handler, sync)
        case .http1:
            let handlers: [any ChannelHandler] = [
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)),
                HTTPResponseEncoder(),
                // Holds pipelined requests until the previous answer is written, so answers keep the requests' order.
                HTTPServerPipelineHandler(),
                ProviderHTTP1Handler(processor: processor, connection: connection),
            ]
            try insert(handlers, after: context.handler, sync)
        }
    }

    /// Adds handlers in order right after `anchor`, each after the previous one.
    private static func insert(
        _ handlers: [any ChannelHandler],
        after anchor: any ChannelHandler,
        _ sync: ChannelPipeline.SynchronousOperations
    ) throws {
        var previous = anchor
        for handler in handlers {
            try sync.addHandler(handler, position: .after(previous))
            previous = handler
        }
    }
}
