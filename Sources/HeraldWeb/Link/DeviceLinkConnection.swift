import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import HeraldStore
import NIOCore
import NIOWebSocket

/// One device's WebSocket on the server: the thin I/O shell around ``StateMachine``.
///
/// It turns frames into state-machine inputs and performs the actions that come out: writing frames,
/// store requests (run by the server's ``ServerWorkQueue``, their results fed back on this event loop),
/// and the engine's inputs. It is also the engine's ``DeviceSession`` through ``DeviceLinkSession``.
/// An authenticated idle connection holds no task and no timer: only this handler, its channel, and the codec.
final class DeviceLinkConnection: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let services: DeviceLinkServices
    /// The host the device reached the link at (its upgrade request's `Host`, port removed), or `nil`: the host of its
    /// web push endpoints.
    private let linkHost: String?
    private var machine: StateMachine
    private var assembler: WebSocketMessageAssembler
    private var session: DeviceLinkSession?
    private var helloDeadline: Scheduled<Void>?
    private var readingPaused = false
    /// When the peer last sent a frame (uptime nanoseconds), for ``PeerCheck``.
    private var lastHeardAt = NIODeadline.now()
    private var closing = false

    init(services: DeviceLinkServices, linkHost: String? = nil) {
        self.services = services
        self.linkHost = linkHost
        self.machine = StateMachine(allowsEnrolment: services.configuration.allowsEnrolment)
        let configuration = services.configuration
        self.assembler = WebSocketMessageAssembler(
            maximumMessageSize: max(configuration.maximumMessageSize, configuration.maximumScreenSize),
            maximumFragmentCount: configuration.maximumFragmentCount
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        helloDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: services.configuration.helloTimeout) { [self] in
            perform(machine.helloTimedOut(), context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastHeardAt = .now()
        switch assembler.receive(unwrapInboundIn(data)) {
        case nil, .pong:
            break
        case .text(let buffer):
            var frame = Result { () throws(DeviceLinkError) in try DeviceLinkClientMessage(frame: buffer.readableBytesView) }
            // A `screen` has its own, larger limit (the assembler lets through the larger of the two).
            let isScreen = if case .success(.screen) = frame { true } else { false }
            let limit = isScreen ? services.configuration.maximumScreenSize : services.configuration.maximumMessageSize
            if buffer.readableBytes > limit { frame = .failure(tooLarge(buffer.readableBytes)) }
            perform(machine.received(frame), context: context)
        case .binary:
            let error = DeviceLinkError(code: .malformedFrame, message: "binary frames are not used: send JSON text frames")
            perform(machine.received(.failure(error)), context: context)
        case .tooLarge(let size):
            perform(machine.received(.failure(tooLarge(size))), context: context)
        case .ping(let data):
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
        case .close(let code, _):
            // Answer the device's close with the same code, then end the connection (RFC 6455 §5.5.1).
            sendClose(code ?? .normalClosure, reason: nil, context: context)
        case .protocolError(let message):
            services.logger.debug("device link protocol error", metadata: ["device_link.error": "\(message)"])
            sendClose(.protocolError, reason: message, context: context)
        }
    }

    /// Closes the link when its device has been silent for the peer timeout, otherwise pings it. A link whose reading
    /// Herald paused is not the device's silence.
    private func checkPeer(context: ChannelHandlerContext) {
        guard !closing else { return }
        if readingPaused { lastHeardAt = .now() }
        if NIODeadline.now() - lastHeardAt >= services.configuration.peerTimeout {
            services.logger.debug("device link peer silent, closing", metadata: ["device_link.session": "\(session.map { "\($0.id)" } ?? "-")"])
            sendClose(.goingAway, reason: "no frame from the device for too long", context: context)
            return
        }
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))),
            promise: nil
        )
    }

    private func tooLarge(_ size: Int) -> DeviceLinkError {
        let limit = services.configuration.maximumMessageSize
        let screenLimit = services.configuration.maximumScreenSize
        return DeviceLinkError(
            code: .frameTooLarge,
            message: "a message of \(size) bytes or more is over the limit of \(limit) bytes (\(screenLimit) for a screen)"
        )
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloDeadline?.cancel()
        helloDeadline = nil
        perform(machine.closed(), context: context)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is WebPortClosing {
            sendClose(.goingAway, reason: "server shutting down", context: context)
        } else if event is DeviceLinkReplaced {
            sendClose(Self.replaced, reason: "replaced by a newer link of the device", context: context)
        } else if let disconnect = event as? DeviceLinkDisconnect {
            refuseAndClose(disconnect.error, context: context)
        } else if event is PeerCheck {
            checkPeer(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        services.logger.debug("device link connection error", metadata: ["device_link.error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Actions

    private func perform(_ actions: [StateMachine.Action], context: ChannelHandlerContext) {
        guard !actions.isEmpty else { return }
        var wrote = false
        for action in actions {
            switch action {
            case .send(let message):
                write(message, context: context)
                wrote = true
            case .sendAndClose(let message):
                write(message, context: context)
                sendClose(.policyViolation, reason: nil, context: context)
            case .refuseAndClose(let error):
                refuseAndClose(error, context: context)
            case .authenticate(let deviceID, let secret):
                let services = self.services
                startStoreRequest(context: context) { await Self.authenticate(deviceID: deviceID, secret: secret, services: services) }
            case .enrol(let name):
                let services = self.services
                startStoreRequest(context: context) { await Self.enrol(name: name, services: services) }
            case .register(let request, let deviceID):
                let services = self.services
                startStoreRequest(context: context) { await Self.register(request, deviceID: deviceID, services: services) }
            case .unregister(let request, let deviceID):
                let services = self.services
                startStoreRequest(context: context) { await Self.unregister(request, deviceID: deviceID, services: services) }
            case .registerActivityToken(let token, let deviceID):
                let services = self.services
                startStoreRequest(context: context) { await Self.registerActivityToken(token, deviceID: deviceID, services: services) }
            case .retireActivityToken(let id, let token, let deviceID):
                let services = self.services
                startStoreRequest(context: context) { await Self.retireActivityToken(id: id, token: token, deviceID: deviceID, services: services) }
            case .subscribeChannel(let request):
                let services = self.services
                let session = self.session
                startStoreRequest(context: context) {
                    // Authenticated connections always have their session; the machine waits for this answer either way.
                    guard let session else {
                        return .failed(DeviceLinkError(code: .internal, message: "the connection has no session", id: request.id))
                    }
                    return await Self.subscribeChannel(request, session: session, services: services)
                }
            case .unsubscribeChannel(let request):
                if let session {
                    let key = ChannelKey(channelID: request.channelID, bundleID: request.bundleID, environment: request.environment)
                    services.channels.unsubscribe(session.id, from: key)
                }
                write(.channelUnsubscribed(DeviceLinkChannelReply(id: request.id, channelID: request.channelID)), context: context)
                wrote = true
            case .subscribeWebPush(let request, let deviceID):
                let services = self.services
                let linkHost = self.linkHost
                startStoreRequest(context: context) {
                    await Self.subscribeWebPush(request, deviceID: deviceID, linkHost: linkHost, services: services)
                }
            case .unsubscribeWebPush(let id, let token, let deviceID):
                let services = self.services
                startStoreRequest(context: context) { await Self.unsubscribeWebPush(id: id, token: token, deviceID: deviceID, services: services) }
            case .openSession(let deviceID, let tokens):
                openSession(deviceID: deviceID, tokens: tokens, context: context)
            case .tokenRegistered(let token):
                if let session { services.engine.tokenRegistered(token, session: session.id) }
            case .tokenUnregistered(let token, let atMilliseconds):
                services.engine.tokenUnregistered(token, atMilliseconds: atMilliseconds)
            case .acknowledge(let apnsID):
                if let session { services.engine.acknowledged(apnsID, session: session.id) }
            case .checkReport(let report, let deviceID):
                // A notification this link was sent lately is this device's: no store read (a report per notification
                // is the device's usual traffic). An older or unknown one is checked against the store.
                if let session, session.wasDelivered(report.apnsID) {
                    perform(machine.reportChecked(report), context: context)
                } else {
                    let services = self.services
                    startStoreRequest(context: context) { await Self.checkReport(report, deviceID: deviceID, services: services) }
                }
            case .report(let report, let deviceID):
                if let session { services.engine.reported(Self.deviceReport(report, deviceID: deviceID), session: session.id) }
            case .screen(let deviceID, let json):
                services.console.screenReceived(deviceID: deviceID, json: json, atMilliseconds: services.clock.nowMilliseconds())
            case .interacted(let result):
                services.console.interacted(result)
            case .closeSession:
                if let session {
                    services.engine.sessionClosed(session.id)
                    services.channels.sessionClosed(session.id)
                    services.console.sessionClosed(session)
                    self.session = nil
                }
            }
        }
        if wrote { context.flush() }
        updateReading(context: context)
    }

    private func openSession(deviceID: String, tokens: [DeviceToken], context: ChannelHandlerContext) {
        helloDeadline?.cancel()
        helloDeadline = nil
        let session = DeviceLinkSession(id: .next(), deviceID: deviceID, channel: context.channel)
        self.session = session
        // The welcome is already written to the pipeline, so the engine's first notification (which hops to this
        // event loop) follows it; the engine hears of the session before the device can read its welcome.
        services.engine.sessionOpened(session, tokens: tokens)
        // The newest link of a device replaces the others: they would stay open and receive nothing.
        for older in services.console.sessionOpened(session) { older.replace() }
        context.flush()
    }

    private func startStoreRequest(
        context: ChannelHandlerContext,
        _ body: @escaping @Sendable () async -> StoreOutcome
    ) {
        services.work.run(on: context.eventLoop, body).assumeIsolated().whenComplete { [self] result in
            let outcome: StoreOutcome
            switch result {
            case .success(let value): outcome = value
            case .failure: outcome = .failed(DeviceLinkError(code: .internal, message: "the server is shutting down"))
            }
            perform(apply(outcome), context: context)
        }
    }

    private func apply(_ outcome: StoreOutcome) -> [StateMachine.Action] {
        switch outcome {
        case .authenticated(let deviceID, let name, let secret, let tokens):
            machine.authenticated(deviceID: deviceID, name: name, secret: secret, tokens: tokens)
        case .authenticationFailed: machine.authenticationFailed()
        case .heldOffline(let error): machine.heldOffline(error)
        case .registered(let registration): machine.registered(registration)
        case .unregistered(let unregistration): machine.unregistered(unregistration)
        case .activityTokenRegistered(let reply): machine.activityTokenRegistered(reply)
        case .activityTokenRetired(let reply): machine.activityTokenRetired(reply)
        case .channelSubscribed(let reply, let kept): machine.channelSubscribed(reply, kept: kept)
        case .webPushSubscribed(let reply, let replaced): machine.webPushSubscribed(reply, replaced: replaced)
        case .webPushUnsubscribed(let reply): machine.webPushUnsubscribed(reply)
        case .reportChecked(let report): machine.reportChecked(report)
        case .failed(let error): machine.requestFailed(error)
        }
    }

    /// Stops reading while a store request is in flight, so a flood of frames waits in the socket, not in memory.
    private func updateReading(context: ChannelHandlerContext) {
        let shouldPause = machine.isWaitingForStore
        guard shouldPause != readingPaused, !closing else { return }
        readingPaused = shouldPause
        context.channel.setOption(ChannelOptions.autoRead, value: !shouldPause).whenComplete { _ in }
    }

    private func write(_ message: DeviceLinkServerMessage, context: ChannelHandlerContext) {
        guard !closing else { return }  // nothing may follow a close frame
        let data = context.channel.allocator.buffer(bytes: message.frame())
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: data)), promise: nil)
    }

    /// Writes an error (a fault rule's `device-offline`), then closes with 1013, "try again later" (RFC 6455 §7.4 as
    /// registered with IANA): the device may come back after the error's `retryAfterMs`.
    private func refuseAndClose(_ error: DeviceLinkError, context: ChannelHandlerContext) {
        write(.error(error), context: context)
        sendClose(Self.tryAgainLater, reason: "device offline (fault rule)", context: context)
    }

    /// WebSocket close code 1013.
    static let tryAgainLater = WebSocketErrorCode(codeNumber: 1013)
    /// WebSocket close code 4000 (private use, RFC 6455 §7.4.2): the device opened a newer link, which replaces this one
    /// (docs/device-link.md, "Keeping the link up").
    static let replaced = WebSocketErrorCode(codeNumber: 4000)

    /// Sends a close frame and closes the connection once it is written.
    private func sendClose(_ code: WebSocketErrorCode, reason: String?, context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(String(reason.prefix(100))) }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }

    /// The report as the engine traces it: its detail names the reporting device (``traceDetail(_:deviceID:)``).
    private static func deviceReport(_ report: DeviceLinkReport, deviceID: String) -> DeviceReport {
        DeviceReport(
            notificationID: report.apnsID,
            event: TraceEventKind(rawValue: report.event.rawValue),
            detailJSON: traceDetail(report.detail, deviceID: deviceID)
        )
    }

    /// The trace detail of a report: `{"device": ID}` followed by the members of the device's `detail`, byte for byte,
    /// except a `device` member of its own (the server says who reported, not the device).
    static func traceDetail(_ detail: [UInt8]?, deviceID: String) -> String {
        var text = "{\"device\":"
        JSONString.append(deviceID, to: &text)
        if let detail {
            for member in JSONMemberScanner(detail) where !JSONMemberScanner.name(of: member, in: detail, equals: "device") {
                text += ","
                text += String(decoding: detail[member.name.lowerBound..<member.value.upperBound], as: UTF8.self)
            }
        }
        return text + "}"
    }
}
