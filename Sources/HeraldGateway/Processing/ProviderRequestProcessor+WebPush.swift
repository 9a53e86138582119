import HeraldCore
import HeraldStore
import HeraldWebPush

/// The push service (docs/web-push.md): `POST /push/<subscription>` on the provider ports, beside the APNs provider
/// API. The rules are `WebPushRequest.evaluate` (HeraldWebPush, no I/O); this part finds the subscription, turns an
/// accepted message into a notification for the store and the delivery engine, and answers.
extension ProviderRequestProcessor {
    /// The header that carries a refusal's one-line explanation (which rule failed, the VAPID `sub`): Herald's, beside
    /// Apple's JSON `reason`. A server's library ignores it; a person or a test reads why.
    static let explanationHeader: StaticString = "herald-explanation"

    /// Decides a web push to the subscription named `subscriptionText` (the last part of the endpoint).
    func webPushDecision(
        head: ProviderRequestHead,
        subscription subscriptionText: String,
        body: [UInt8],
        bodyTooLarge: Bool,
        connection: inout ProviderConnectionState,
        apnsID: String,
        startedAt: ContinuousClock.Instant
    ) -> ProviderDecision {
        let now = services.clock.nowMilliseconds()
        func refuse(_ status: Int, _ reason: String, _ explanation: String) -> ProviderDecision {
            .respond(
                webPushRefusal(status: status, reason: reason, explanation: explanation, apnsID: apnsID, subscription: subscriptionText, now: now)
            )
        }
        guard head.method == "POST" else { return refuse(405, "MethodNotAllowed", "a push is a POST") }
        // The head keeps one value of each header and a flag for a repeat, so a repeat is answered here; the rules
        // would answer it first too (docs/web-push.md, "The answers", row 1).
        if head.hasWebPushDuplicates || head.hasDuplicates {
            return refuse(400, "DuplicateHeaders", "a header the push service reads is sent twice")
        }
        let token = DeviceToken(hex: subscriptionText.lowercased())
        let record: TokenRecord?
        do {
            record = try token.flatMap { try services.store.lookup($0) }
        } catch {
            // The store cannot say whether the subscription exists (its database is away): 503, which a server retries.
            return refuse(503, "ServiceUnavailable", "the store cannot be read")
        }
        var subscription: WebPushRequest.Subscription?
        if let record, record.kind == .webPush, let key = record.activityType,
            let serverKey = try? VAPIDPublicKey(base64URL: key, field: "applicationServerKey")
        {
            subscription = WebPushRequest.Subscription(applicationServerKey: serverKey, state: record.isActive ? .active : .expired)
        }
        let origin = (connection.isTLS ? "https://" : "http://") + (head.authority ?? "")
        var headers: [(name: String, value: String)] = []
        if let value = head.authorization { headers.append((name: "authorization", value: value)) }
        if let value = head.cryptoKey { headers.append((name: "crypto-key", value: value)) }
        if let value = head.ttl { headers.append((name: "ttl", value: value)) }
        if let value = head.urgency { headers.append((name: "urgency", value: value)) }
        if let value = head.webPushTopic { headers.append((name: "topic", value: value)) }
        if let value = head.contentEncoding { headers.append((name: "content-encoding", value: value)) }
        // A body past the connection's buffer was not kept: it is longer than any the push service takes.
        let bodyLength = bodyTooLarge ? max(body.count, webPushPolicy.maximumBodyLength + 1) : body.count
        let request = WebPushRequest(headers: headers, bodyLength: bodyLength, origin: origin)
        switch request.evaluate(subscription: subscription, policy: webPushPolicy, nowSeconds: now / 1000, credentialCache: vapidCredentials) {
        case .failure(let refusal):
            var explanation = refusal.explanation
            // Who sent it, unless the explanation is about the `sub` itself and names it already.
            if let subject = refusal.subject, !explanation.hasPrefix("VAPID sub ") {
                explanation = "VAPID sub \"\(subject)\": " + explanation
            }
            return refuse(refusal.status, refusal.reason.rawValue, explanation)
        case .success(let accepted):
            var response = ProviderResponse(status: 201, apnsID: apnsID)
            // RFC 8030 §5: the push message's resource; §5.2: the TTL kept.
            response.extraHeaders = [(name: "location", value: origin + "/message/" + apnsID), (name: "ttl", value: String(accepted.ttl.seconds))]
            guard case .deliver = accepted.delivery, let record, let token else {
                // Removed permission, answered as sent (docs/web-push.md, row 11): nothing is stored.
                if case .dropAnsweredAsSent(let why) = accepted.delivery {
                    response.extraHeaders.append((name: Self.explanationHeader, value: why))
                }
                metrics.recordWebPush(status: 201, reason: nil)
                return .respond(response)
            }
            let message = WebPushStoredMessage(
                encoding: accepted.contentEncoding,
                body: accepted.contentEncoding == nil ? [] : body,
                urgency: accepted.urgency,
                ttl: accepted.ttl,
                subject: accepted.vapid.subject
            )
            // TTL 0 is APNs's `apns-expiration: 0`, now or never (docs/delivery.md, rule 6).
            let expiration = accepted.ttl.seconds == 0 ? 0 : now / 1000 + accepted.ttl.seconds
            let notification = AcceptedNotification(
                id: NotificationID(apnsID) ?? .random(),
                token: token,
                topic: record.bundleID,
                bundleID: record.bundleID,
                environment: record.environment,
                pushType: .webPush,
                priority: APNSPriority(rawValue: accepted.urgency.apnsPriority),
                expiration: expiration,
                collapseID: accepted.topic?.value,
                payload: message.payload,
                acceptedAtMilliseconds: now
            )
            // A connection that sent a push with valid VAPID credentials may use all its streams, as one with a valid
            // provider token may (spec §A.1): an HTTP/2 sender of web pushes is not held to one stream.
            if !connection.isAuthenticated, !connection.sentValidWebPush {
                connection.sentValidWebPush = true
                connection.noteFirstValidToken()
            }
            return .commit(notification, response, startedAt: startedAt, device: nil)
        }
    }

    /// A refusal: Apple's status and JSON `reason`, `apns-id`, and Herald's explanation header.
    /// Counts it and records it in the refusal log (the trace's `refused` event).
    private func webPushRefusal(
        status: Int,
        reason: String,
        explanation: String,
        apnsID: String,
        subscription: String,
        now: Int64
    ) -> ProviderResponse {
        metrics.recordWebPush(status: status, reason: reason)
        if let id = NotificationID(apnsID) {
            services.webPushRefusals.record(
                apnsID: id,
                status: status,
                reason: reason,
                explanation: explanation,
                subscription: subscription,
                atMilliseconds: now
            )
        }
        var response = ProviderResponse(status: status, apnsID: apnsID, reason: APNSReason(rawValue: reason))
        response.extraHeaders = [(name: Self.explanationHeader, value: Self.headerSafe(explanation))]
        return response
    }

    /// `text` as a header value: control characters and anything outside printable ASCII become `?`, at most 512 bytes
    /// (an explanation quotes what the sender sent, which may be anything).
    static func headerSafe(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(512) {
            out.unicodeScalars.append(scalar.value >= 0x20 && scalar.value < 0x7F ? scalar : "?")
        }
        return out
    }
}
