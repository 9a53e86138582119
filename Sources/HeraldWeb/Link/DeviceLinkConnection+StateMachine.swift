import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import HeraldWebPush
import NIOCore

extension DeviceLinkConnection {
    /// The rules of one device-link connection, free of I/O: frames and store results go in, actions come out.
    ///
    /// Frames are handled strictly in order: while a store request (authentication, registration) is in
    /// flight, later frames wait in a queue, so replies come back in the order of the requests and an
    /// `unregister` never overtakes the `register` before it.
    struct StateMachine {
        enum State: Equatable {
            /// Connected; only `hello` is accepted.
            case awaitingHello
            /// `hello` is being checked against the store.
            case authenticating
            /// The device authenticated.
            case authenticated(deviceID: String)
            /// The connection ended or is ending: nothing more is done.
            case closed
        }

        /// What the connection must do, in order.
        enum Action: Equatable {
            /// Send a frame.
            case send(DeviceLinkServerMessage)
            /// Send a frame, then close the connection with WebSocket code 1008 (policy violation).
            case sendAndClose(DeviceLinkServerMessage)
            /// Send this error, then close the connection with WebSocket code 1013 (try again later).
            case refuseAndClose(DeviceLinkError)
            /// Check the device's id and secret with the store, then call `authenticated` or `authenticationFailed`.
            case authenticate(deviceID: String, secret: String)
            /// Create a device with this name in the store, then call `authenticated`.
            case enrol(name: String)
            /// Issue (or find) the app's token, then call `registered`.
            case register(DeviceLinkAppRequest, deviceID: String)
            /// Unregister the app's active token, then call `unregistered`.
            case unregister(DeviceLinkAppRequest, deviceID: String)
            /// Register a Live Activity token the device reported, then call `activityTokenRegistered`.
            case registerActivityToken(DeviceLinkActivityToken, deviceID: String)
            /// Retire one of the device's Live Activity tokens, then call `activityTokenRetired`.
            case retireActivityToken(id: String?, token: DeviceToken, deviceID: String)
            /// Subscribe the connection to a channel the store must know, then call `channelSubscribed`.
            case subscribeChannel(DeviceLinkChannelRequest)
            /// End one of the connection's subscriptions and answer `channel-unsubscribed`.
            case unsubscribeChannel(DeviceLinkChannelRequest)
            /// Register a web push subscription (its key checked and in base64url without padding), then call
            /// `webPushSubscribed`.
            case subscribeWebPush(DeviceLinkWebPushSubscriptionRequest, deviceID: String)
            /// End one of the device's web push subscriptions, then call `webPushUnsubscribed`.
            case unsubscribeWebPush(id: String?, token: DeviceToken, deviceID: String)
            /// Tell the engine the device is connected with these active tokens.
            case openSession(deviceID: String, tokens: [DeviceToken])
            /// Tell the engine an app on this connection has this token.
            case tokenRegistered(DeviceToken)
            /// Tell the engine the token stopped at this time.
            case tokenUnregistered(DeviceToken, atMilliseconds: Int64)
            /// Tell the engine the device acknowledged a notification.
            case acknowledge(NotificationID)
            /// Check that the report's notification was sent to this device, then call `reportChecked`.
            case checkReport(DeviceLinkReport, deviceID: String)
            /// Tell the engine what the device reported.
            case report(DeviceLinkReport, deviceID: String)
            /// Keep the device's newest screen (the text of a JSON object).
            case screen(deviceID: String, json: [UInt8])
            /// The device ran an `interact` request.
            case interacted(DeviceLinkInteractionResult)
            /// Tell the engine the session is over.
            case closeSession
        }

        private(set) var state = State.awaitingHello
        private var waiting = CircularBuffer<Result<DeviceLinkClientMessage, DeviceLinkError>>(initialCapacity: 1)
        private var isBusy = false
        let allowsEnrolment: Bool

        init(allowsEnrolment: Bool) {
            self.allowsEnrolment = allowsEnrolment
        }

        /// Whether a store request is in flight (the connection stops reading until it is not).
        var isWaitingForStore: Bool { isBusy }

        // MARK: Inputs

        /// A text message arrived (decoded, or the error decoding it gave).
        mutating func received(_ frame: Result<DeviceLinkClientMessage, DeviceLinkError>) -> [Action] {
            guard state != .closed else { return [] }
            waiting.append(frame)
            return drain()
        }

        /// The store accepted the `hello`.
        mutating func authenticated(deviceID: String, name: String, secret: String?, tokens: [DeviceToken]) -> [Action] {
            guard state == .authenticating else { return finishRequest() }
            state = .authenticated(deviceID: deviceID)
            let welcome = DeviceLinkWelcome(deviceID: deviceID, name: name, secret: secret)
            return [.send(.welcome(welcome)), .openSession(deviceID: deviceID, tokens: tokens)] + finishRequest()
        }

        /// The store did not recognise the device id and secret: the connection ends.
        mutating func authenticationFailed() -> [Action] {
            guard state == .authenticating else { return finishRequest() }
            state = .closed
            isBusy = false
            waiting.removeAll()
            let error = DeviceLinkError(code: .unauthorized, message: "unknown device or wrong secret")
            return [.sendAndClose(.error(error))]
        }

        /// The device is known, but a fault rule keeps it offline (docs/faults.md): the connection ends.
        mutating func heldOffline(_ error: DeviceLinkError) -> [Action] {
            guard state == .authenticating else { return finishRequest() }
            state = .closed
            isBusy = false
            waiting.removeAll()
            return [.refuseAndClose(error)]
        }

        /// An app's token was issued or found.
        mutating func registered(_ registration: DeviceLinkRegistration) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            // The device learns its token before the engine may send anything for it.
            return [.send(.registered(registration)), .tokenRegistered(registration.token)] + finishRequest()
        }

        /// An app's token was unregistered.
        mutating func unregistered(_ unregistration: DeviceLinkUnregistration) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            return [
                .tokenUnregistered(unregistration.token, atMilliseconds: unregistration.unregisteredAtMilliseconds),
                .send(.unregistered(unregistration)),
            ] + finishRequest()
        }

        /// A Live Activity token was registered (or already was).
        mutating func activityTokenRegistered(_ reply: DeviceLinkActivityTokenReply) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            // As for `registered`: the device learns the answer before the engine may send anything to the token.
            return [.send(.activityTokenRegistered(reply)), .tokenRegistered(reply.token)] + finishRequest()
        }

        /// A Live Activity token was retired.
        mutating func activityTokenRetired(_ reply: DeviceLinkActivityTokenReply) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            return [
                .tokenUnregistered(reply.token, atMilliseconds: reply.retiredAtMilliseconds ?? 0),
                .send(.activityTokenRetired(reply)),
            ] + finishRequest()
        }

        /// A web push subscription was registered (or already was); `replaced` is the subscription of the same origin
        /// and key it replaced, and when that one ended.
        mutating func webPushSubscribed(
            _ reply: DeviceLinkWebPushSubscription,
            replaced: (token: DeviceToken, atMilliseconds: Int64)? = nil
        ) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            // As for `registered`: the device learns its endpoint before the engine may send anything to the subscription.
            var actions: [Action] = [.send(.webPushSubscribed(reply)), .tokenRegistered(reply.token)]
            if let replaced { actions.append(.tokenUnregistered(replaced.token, atMilliseconds: replaced.atMilliseconds)) }
            return actions + finishRequest()
        }

        /// A web push subscription ended.
        mutating func webPushUnsubscribed(_ reply: DeviceLinkWebPushUnsubscription) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            return [.tokenUnregistered(reply.token, atMilliseconds: reply.retiredAtMilliseconds), .send(.webPushUnsubscribed(reply))]
                + finishRequest()
        }

        /// The connection subscribes to a channel; `kept` is the channel's kept broadcast, sent right after the answer.
        mutating func channelSubscribed(_ reply: DeviceLinkChannelReply, kept: DeviceLinkBroadcast?) -> [Action] {
            guard case .authenticated = state else { return finishRequest() }
            var actions: [Action] = [.send(.channelSubscribed(reply))]
            if let kept { actions.append(.send(.broadcast(kept))) }
            return actions + finishRequest()
        }

        /// The report's notification was sent to this device: it goes to the trace.
        mutating func reportChecked(_ report: DeviceLinkReport) -> [Action] {
            guard case .authenticated(let deviceID) = state else { return finishRequest() }
            return [.report(report, deviceID: deviceID)] + finishRequest()
        }

        /// A store request failed; the device gets the error and may retry.
        mutating func requestFailed(_ error: DeviceLinkError) -> [Action] {
            if state == .authenticating { state = .awaitingHello }
            guard state != .closed else { return finishRequest() }
            return [.send(.error(error))] + finishRequest()
        }

        /// No `hello` came in time: the connection ends.
        mutating func helloTimedOut() -> [Action] {
            guard state == .awaitingHello || state == .authenticating else { return [] }
            state = .closed
            waiting.removeAll()
            let error = DeviceLinkError(code: .notAuthenticated, message: "no hello in time")
            return [.sendAndClose(.error(error))]
        }

        /// The connection closed.
        mutating func closed() -> [Action] {
            let wasAuthenticated = if case .authenticated = state { true } else { false }
            state = .closed
            waiting.removeAll()
            return wasAuthenticated ? [.closeSession] : []
        }

        // MARK: Processing

        private mutating func finishRequest() -> [Action] {
            isBusy = false
            return drain()
        }

        /// Handles waiting frames until one needs the store.
        private mutating func drain() -> [Action] {
            var actions: [Action] = []
            while !isBusy, state != .closed, let frame = waiting.popFirst() {
                actions += handle(frame)
            }
            return actions
        }

        private mutating func handle(_ frame: Result<DeviceLinkClientMessage, DeviceLinkError>) -> [Action] {
            let message: DeviceLinkClientMessage
            switch (state, frame) {
            case (.awaitingHello, .failure(let error)), (.authenticating, .failure(let error)):
                // Before `hello`, every frame that is not a well-formed `hello` is `not-authenticated`, whatever else is
                // wrong with it (docs/device-link.md, "hello").
                return [.send(.error(error.with(code: .notAuthenticated, message: "send hello first; this frame was refused: \(error.message)")))]
            case (_, .failure(let error)): return [.send(.error(error))]
            case (_, .success(let decoded)): message = decoded
            }
            switch (state, message) {
            case (.awaitingHello, .hello(.device(let id, let secret))):
                state = .authenticating
                isBusy = true
                return [.authenticate(deviceID: id, secret: secret)]
            case (.awaitingHello, .hello(.enrol(let name))):
                guard allowsEnrolment else {
                    return [.send(.error(DeviceLinkError(code: .enrolmentDisabled, message: "this server does not allow self-enrolment")))]
                }
                state = .authenticating
                isBusy = true
                return [.enrol(name: name)]
            case (.awaitingHello, _), (.authenticating, _):
                return [.send(.error(Self.notAuthenticated(message)))]
            case (.authenticated, .hello):
                return [.send(.error(DeviceLinkError(code: .alreadyAuthenticated, message: "this connection already said hello")))]
            case (.authenticated(let deviceID), .register(let request)):
                isBusy = true
                return [.register(request, deviceID: deviceID)]
            case (.authenticated(let deviceID), .unregister(let request)):
                isBusy = true
                return [.unregister(request, deviceID: deviceID)]
            case (.authenticated(let deviceID), .activityToken(let token)):
                isBusy = true
                return [.registerActivityToken(token, deviceID: deviceID)]
            case (.authenticated(let deviceID), .retireActivityToken(let id, let token)):
                isBusy = true
                return [.retireActivityToken(id: id, token: token, deviceID: deviceID)]
            case (.authenticated, .subscribeChannel(let request)):
                isBusy = true
                return [.subscribeChannel(request)]
            case (.authenticated, .unsubscribeChannel(let request)):
                return [.unsubscribeChannel(request)]
            case (.authenticated(let deviceID), .webPushSubscribe(let request)):
                return Self.subscribe(request, deviceID: deviceID, busy: &isBusy)
            case (.authenticated(let deviceID), .webPushUnsubscribe(let id, let token)):
                isBusy = true
                return [.unsubscribeWebPush(id: id, token: token, deviceID: deviceID)]
            case (.authenticated, .ack(let apnsID)):
                return [.acknowledge(apnsID)]
            case (.authenticated(let deviceID), .report(let report)):
                // Only the device a notification was sent to may add to its trace.
                isBusy = true
                return [.checkReport(report, deviceID: deviceID)]
            case (.authenticated(let deviceID), .screen(let json)):
                return [.screen(deviceID: deviceID, json: json)]
            case (.authenticated, .interacted(let result)):
                return [.interacted(result)]
            case (.closed, _):
                return []
            }
        }

        /// A subscription whose `applicationServerKey` is a P-256 public key goes to the store, the key written as
        /// browsers write it (base64url without padding), so that one key is one text in the registry.
        ///
        /// Checked here rather than when the frame is read: HeraldDeviceLink, which devices link too, stays free of
        /// cryptography.
        private static func subscribe(_ request: DeviceLinkWebPushSubscriptionRequest, deviceID: String, busy: inout Bool) -> [Action] {
            let key: VAPIDPublicKey
            do {
                key = try VAPIDPublicKey(base64URL: request.applicationServerKey, field: "applicationServerKey")
            } catch {
                let message = "\"applicationServerKey\" must be a P-256 public key in base64url: \(error.explanation)"
                return [.send(.error(DeviceLinkError(code: .invalidApplicationServerKey, message: message, id: request.id)))]
            }
            var request = request
            request.applicationServerKey = key.base64URL
            busy = true
            return [.subscribeWebPush(request, deviceID: deviceID)]
        }

        private static func notAuthenticated(_ message: DeviceLinkClientMessage) -> DeviceLinkError {
            var error = DeviceLinkError(code: .notAuthenticated, message: "send hello first")
            switch message {
            case .register(let request), .unregister(let request): error.id = request.id
            case .ack(let apnsID): error.apnsID = apnsID.text
            case .report(let report): error.apnsID = report.apnsID.text
            case .interacted(let result): error.id = result.id
            case .activityToken(let token): error.id = token.id
            case .retireActivityToken(let id, _): error.id = id
            case .subscribeChannel(let request), .unsubscribeChannel(let request): error.id = request.id
            case .webPushSubscribe(let request): error.id = request.id
            case .webPushUnsubscribe(let id, _): error.id = id
            case .hello, .screen: break
            }
            return error
        }
    }
}
