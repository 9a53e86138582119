import Foundation
import HeraldAuth
import HeraldCore
import HeraldStore
import HeraldWebPush
import Logging
import NIOCore
import Prometheus

/// What to do with one request: answer now, or commit and then answer.
enum ProviderDecision: Sendable {
    case respond(ProviderResponse)
    /// Commit, then answer; `startedAt` is when the request was complete (for the accept latency); `device` is a fault
    /// rule's device-side effect on the notification, handed to the delivery engine with it.
    case commit(AcceptedNotification, ProviderResponse, startedAt: ContinuousClock.Instant, device: DeviceFault?)
    /// Work off the event loop (a channel-management request's store access), then answer with what it reports.
    case perform(@Sendable (_ answer: @escaping @Sendable (ProviderResponse) -> Void) -> Void)
    /// Wait, then carry out the decision (a fault rule's `delayMs`, docs/faults.md).
    indirect case delayed(TimeAmount, ProviderDecision)
    /// A fault rule's `reset`: RST_STREAM instead of an answer (HTTP/1.1: close the connection).
    case reset
    /// A fault rule's `close`: close the connection instead of answering.
    case close
    /// Carry out the decision, then a fault rule's GOAWAY or stall.
    indirect case then(ProviderDecision, ConnectionFault)
}

/// What a fault rule does to the connection after the answer.
enum ConnectionFault: Sendable {
    /// GOAWAY with this reason, then close once the streams are done.
    case goAway(APNSReason)
    /// Read nothing more for this long.
    case stall(TimeAmount)
}

/// Decides every provider request in the documented order (docs/provider-api.md) and commits accepted ones.
///
/// Shared by all connections and event loops; it holds no per-connection state (that is `ProviderConnectionState`).
final class ProviderRequestProcessor: Sendable {
    /// The most body bytes a connection buffers for one request: the largest payload APNs takes (VoIP,
    /// 5120 bytes, spec §A.6) plus one, so that "too large" is known without keeping the rest.
    static let bodyLimit = ProviderRequestRules.bodyLimit

    let services: ProviderServices
    let environment: APNSEnvironment
    private let policy: ValidationPolicy
    /// The push service's choices (docs/web-push.md).
    let webPushPolicy: WebPushPolicy
    /// VAPID credentials verified before: a sender that reuses its JWT is not verified again on every push.
    let vapidCredentials = VAPIDCredentialCache()
    private let rules: ProviderRequestRules
    private let rateLimiter: TokenRateLimiter?
    private let generatedIDFormat: GeneratedIDFormat
    let metrics: GatewayMetrics
    /// Where connections closed for a protocol error or a limit are logged, within a rate.
    let closureLog: ConnectionClosureLog

    init(
        configuration: GatewayConfiguration,
        services: ProviderServices,
        metrics: GatewayMetrics = GatewayMetrics(registry: PrometheusCollectorRegistry()),
        logger: Logger = Logger(label: "herald.gateway") { _ in SwiftLogNoOpLogHandler() }
    ) {
        self.services = services
        self.metrics = metrics
        let clock = services.clock
        self.closureLog = ConnectionClosureLog(
            logger: logger,
            linesPerSecond: configuration.limits.closureLogLinesPerSecond,
            nowMilliseconds: { clock.nowMilliseconds() }
        )
        self.environment = configuration.environment
        self.policy = configuration.policy
        self.webPushPolicy = configuration.webPush
        self.generatedIDFormat = configuration.generatedIDFormat
        self.rules = ProviderRequestRules(environment: configuration.environment, policy: configuration.policy)
        self.rateLimiter = configuration.perTokenRateLimit > 0 ? TokenRateLimiter(perSecond: configuration.perTokenRateLimit) : nil
    }

    /// The state of a new connection, given the client certificate it presented (DER), if any, and whether it came over
    /// TLS.
    func makeConnectionState(clientCertificateDER: [UInt8]?, isTLS: Bool = false) -> ProviderConnectionState {
        var authConfiguration = ConnectionAuthentication.Configuration()
        authConfiguration.badEnvironmentKeyReason = policy.badEnvironmentKeyReason
        var certificate: ProviderCertificate?
        var rejection: APNSReason?
        if let der = clientCertificateDER {
            do {
                certificate = try ProviderCertificate(derBytes: der)
            } catch {
                rejection = .badCertificate
            }
        }
        let authentication = ConnectionAuthentication(
            environment: environment,
            clientCertificate: certificate,
            configuration: authConfiguration
        )
        return ProviderConnectionState(authentication: authentication, certificateRejection: rejection, isTLS: isTLS)
    }

    /// Decides one request; a rejection is counted here, an acceptance once its commit completes.
    func process(head: ProviderRequestHead, body: [UInt8], bodyTooLarge: Bool, connection: inout ProviderConnectionState) -> ProviderDecision {
        let startedAt = ContinuousClock.now
        let providedID = head.apnsID.flatMap { NotificationID($0) }
        let notificationID = providedID ?? generatedIDFormat.make()
        let apnsID = notificationID.text
        // Spec §A.4: `apns-unique-id` exists only in the development (sandbox) environment; derived from the apns-id
        // so that the inspection API finds the notification by it (NotificationID.uniqueID).
        let uniqueID = environment == .sandbox ? notificationID.uniqueID.text : nil
        // Fault rules (docs/faults.md): with none in force, one atomic load.
        var hit: FaultTable.Hit?
        if !services.faults.isEmpty {
            let now = services.clock.nowMilliseconds()
            hit = services.faults.hit(for: head, nowMilliseconds: now)
            if let hit { services.faults.log.record(hit, apnsID: notificationID, atMilliseconds: now) }
        }
        var result: ProviderDecision
        switch (hit?.connection, hit?.answer) {
        case (.reset?, _): result = .reset
        case (.close?, _): result = .close
        case (_, let answer?): result = .respond(faultResponse(answer, apnsID: apnsID, uniqueID: uniqueID, ruleID: hit?.ruleID))
        case (_, nil):
            result = decision(
                head: head,
                body: body,
                bodyTooLarge: bodyTooLarge,
                connection: &connection,
                apnsID: apnsID,
                uniqueID: uniqueID,
                startedAt: startedAt
            )
        }
        guard let hit else { return result }
        metrics.recordFault()
        // A device-side effect goes with the notification if it is accepted; a request refused on its merits gets its
        // real answer and no effect.
        if let device = hit.device, case .commit(let notification, let response, let startedAt, nil) = result {
            result = .commit(notification, response, startedAt: startedAt, device: device)
        }
        switch hit.connection {
        case .goAway(let reason)?: result = .then(result, .goAway(APNSReason(rawValue: reason)))
        case .stall(let milliseconds)?: result = .then(result, .stall(.milliseconds(milliseconds)))
        default: break
        }
        guard let delay = hit.delayMilliseconds, delay > 0 else { return result }
        return .delayed(.milliseconds(delay), result)
    }

    /// The decision for a request no fault rule answers.
    private func decision(
        head: ProviderRequestHead,
        body: [UInt8],
        bodyTooLarge: Bool,
        connection: inout ProviderConnectionState,
        apnsID: String,
        uniqueID: String?,
        startedAt: ContinuousClock.Instant
    ) -> ProviderDecision {
        let target = head.pathTarget
        switch target {
        case .channels(let bundleID), .allChannels(let bundleID):
            return channelDecision(head: head, target: target, bundleID: bundleID, body: body, bodyTooLarge: bodyTooLarge, connection: &connection)
        case .otherAppPath:
            // docs/broadcast.md: answers on the channel paths never carry `apns-id`, nor do the wrong ones beside them.
            let requestID = head.requestID.flatMap { NotificationID($0)?.text } ?? NotificationID.random().text
            let knownMethod = head.method.map { ["POST", "GET", "DELETE"].contains($0) } ?? false
            return .respond(refusal(requestID: requestID)(knownMethod ? .badPath : .methodNotAllowed))
        case .webPush(let subscription):
            return webPushDecision(
                head: head,
                subscription: subscription,
                body: body,
                bodyTooLarge: bodyTooLarge,
                connection: &connection,
                apnsID: apnsID,
                startedAt: startedAt
            )
        case .broadcast(let bundleID):
            return broadcastDecision(
                head: head,
                bundleID: bundleID,
                body: body,
                bodyTooLarge: bodyTooLarge,
                connection: &connection,
                uniqueID: uniqueID
            )
        default:
            break
        }
        switch decide(head: head, target: target, body: body, bodyTooLarge: bodyTooLarge, connection: &connection, apnsID: apnsID) {
        case .failure(let rejection):
            metrics.recordRejected(rejection.reason)
            var response = ProviderResponse.failure(rejection.reason, apnsID: apnsID, timestamp: rejection.timestamp)
            response.uniqueID = uniqueID
            return .respond(response)
        case .success(let notification):
            return .commit(notification, .success(apnsID: apnsID, uniqueID: uniqueID), startedAt: startedAt, device: nil)
        }
    }

    /// Commits an accepted notification; `completion` runs on the store's writer, never on the caller's loop. `device`
    /// (a fault rule's device-side effect) goes to ``ProviderServices/onAccepted`` with it.
    ///
    /// Counts the request as accepted (with its latency since `startedAt`) when the commit succeeds, as
    /// rejected with ``reason(forCommitFailure:)`` when it fails: the answers the caller then sends.
    func commit(
        _ notification: AcceptedNotification,
        startedAt: ContinuousClock.Instant,
        device: DeviceFault? = nil,
        completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        let onAccepted = services.onAccepted
        let metrics = self.metrics
        services.store.enqueue(notification) { result in
            switch result {
            case .success(let sequence):
                onAccepted?(notification, sequence, device)
                metrics.recordAccepted(startedAt: startedAt)
                if notification.pushType == .webPush { metrics.recordWebPush(status: 201, reason: nil) }
            case .failure(let error):
                let reason = Self.reason(forCommitFailure: error)
                metrics.recordRejected(reason)
                if notification.pushType == .webPush { metrics.recordWebPush(status: reason.status, reason: reason.rawValue) }
            }
            completion(result.map { _ in }.mapError { $0 })
        }
    }

    /// The answer to a failed commit: `ServiceUnavailable` (503) when the store has no room, too much queued or its
    /// database cannot be reached (``StoreError/storeFull``, ``StoreError/overloaded``, ``StoreError/unavailable``: the
    /// provider may retry later), else
    /// `InternalServerError` (500). Nothing of a failed commit was stored, either way.
    static func reason(forCommitFailure error: any Error) -> APNSReason {
        guard let error = error as? StoreError else { return .internalServerError }
        return error == .storeFull || error == .overloaded || error == .unavailable ? .serviceUnavailable : .internalServerError
    }

    typealias Rejection = ProviderRequestRules.Rejection

    /// The answer a fault rule gives instead of the real one: the notification is not stored (docs/faults.md).
    /// A fault rule's answer, naming the rule in `herald-fault-rule` (docs/faults.md, "Seeing it"): a provider's
    /// client ignores a header it does not know, and a person reading the answer sees why it came.
    private func faultResponse(_ answer: FaultAnswer, apnsID: String, uniqueID: String?, ruleID: String?) -> ProviderResponse {
        metrics.recordRejected(answer.reason)
        var response = ProviderResponse.failure(answer.reason, apnsID: apnsID, timestamp: answer.timestamp ?? services.clock.nowMilliseconds())
        response.uniqueID = uniqueID
        if let ruleID { response.extraHeaders = [(name: "herald-fault-rule", value: ruleID)] }
        return response
    }

    private func decide(
        head: ProviderRequestHead,
        target: ProviderRequestHead.PathTarget,
        body: [UInt8],
        bodyTooLarge: Bool,
        connection: inout ProviderConnectionState,
        apnsID: String
    ) -> Result<AcceptedNotification, Rejection> {
        let now = services.clock.nowMilliseconds()
        let nowSeconds = now / 1000
        // 1. method, 2. path
        guard head.method == "POST" else { return .failure(Rejection(reason: .methodNotAllowed)) }
        let tokenText: String
        switch target {
        case .missingToken: return .failure(Rejection(reason: .missingDeviceToken))
        case .device(let text): tokenText = text
        // Broadcasts are not served yet (docs/broadcast.md); channel management never reaches here.
        case .other, .otherAppPath, .broadcast, .channels, .allChannels, .webPush: return .failure(Rejection(reason: .badPath))
        }
        // 3. duplicate headers
        guard !head.hasDuplicates else { return .failure(Rejection(reason: .duplicateHeaders)) }
        // 4. authentication (the topic's permission is checked with the topic, in step 6)
        if let rejection = connection.certificateRejection { return .failure(Rejection(reason: rejection)) }
        let authorization = authenticate(head: head, connection: &connection, nowSeconds: nowSeconds)
        if let reason = authorization.rejection, reason != .topicDisallowed, reason != .missingTopic {
            return .failure(Rejection(reason: reason))
        }
        // 5.–8. header values, topic, device token, payload: the rules the web console's validation shares
        let deferred = authorization.rejection  // TopicDisallowed or MissingTopic, reported after the topic check
        let notification: AcceptedNotification
        switch rules.check(
            head: head,
            tokenText: tokenText,
            body: body,
            bodyTooLarge: bodyTooLarge,
            authorizedTopic: authorization.topic,
            authorizationRejection: deferred,
            teamID: authorization.teamID,
            store: services.store,
            nowMilliseconds: now,
            apnsID: apnsID
        ) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let accepted): notification = accepted
        }
        // 9. per-token rate
        if let rateLimiter, !rateLimiter.admit(notification.token, nowMilliseconds: now) {
            return .failure(Rejection(reason: .tooManyRequests))
        }
        return .success(notification)
    }

    /// Runs the connection's authentication rules, loading a key the verifier has not seen from the store.
    func authenticate(
        head: ProviderRequestHead,
        connection: inout ProviderConnectionState,
        nowSeconds: Int64
    ) -> ConnectionAuthentication.Decision {
        let bundleID = head.topic.flatMap { topic in
            PushType(rawValue: head.pushType ?? PushType.inferred(fromTopic: topic).rawValue).bundleID(fromTopic: topic)
        }
        var token: Result<VerifiedProviderToken, ProviderTokenError> = .failure(.missing)
        if !connection.authentication.usesCertificate {
            token = services.verifier.verify(authorization: head.authorization, nowSeconds: nowSeconds)
            if case .failure(let error) = token, error == .unknownKey {
                switch loadKey(for: head.authorization) {
                case .loaded: token = services.verifier.verify(authorization: head.authorization, nowSeconds: nowSeconds)
                case .absent: break
                // The store cannot say whether the key exists (the database is away): `503`, not `403
                // InvalidProviderToken`, which a provider takes as "this key is wrong".
                case .unavailable: return .reject(.serviceUnavailable)
                }
            }
        }
        let decision = connection.authentication.authorize(token: token, topic: head.topic, bundleID: bundleID, nowSeconds: nowSeconds)
        if decision.isFirstValidToken { connection.noteFirstValidToken() }
        return decision
    }

    /// What ``loadKey(for:)`` found.
    private enum KeyLoad {
        case loaded
        /// No token, or the store has no such key.
        case absent
        /// The store could not be asked (``StoreError/unavailable``).
        case unavailable
    }

    /// Registers in the verifier the key a token names, if the store has it (keys added while the server runs).
    private func loadKey(for authorization: String?) -> KeyLoad {
        guard case .success(let text) = BearerAuthorization.token(in: authorization),
            let parsed = try? ProviderToken(parsing: text)
        else { return .absent }
        let record: SigningKeyRecord?
        do {
            record = try services.store.signingKey(keyID: parsed.keyID)
        } catch let error as StoreError where error == .unavailable {
            return .unavailable
        } catch {
            return .absent
        }
        guard let record, let key = try? SigningKey(record) else { return .absent }
        services.verifier.register(key)
        return .loaded
    }
}
