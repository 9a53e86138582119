extension WebPushRequest {
    /// Decides the request: accepted, or refused with Apple's status and reason where Apple is known to answer so and
    /// Herald's *(chosen)* one elsewhere (docs/web-push.md lists each).
    ///
    /// The checks run in this order, and the first that fails answers: a header repeated; the subscription (unknown
    /// `404 BadPath`, expired `410 Unregistered`); VAPID (``VAPIDVerifier``, `403 BadJwtToken`); the body's length
    /// (`413 PayloadTooLarge`); `Content-Encoding`; `TTL`; `Urgency`; `Topic`; last, a removed permission, answered as
    /// the policy says. A refusal after VAPID names the verified subject.
    ///
    /// - Parameters:
    ///   - subscription: the subscription the endpoint names, `nil` when it names none.
    ///   - policy: the push service's choices.
    ///   - nowSeconds: the time, in seconds since the UNIX epoch, for VAPID's `exp`.
    ///   - credentialCache: VAPID credentials verified before (``VAPIDCredentialCache``); `nil` verifies them every time.
    public func evaluate(
        subscription: Subscription?,
        policy: WebPushPolicy,
        nowSeconds: Int64,
        credentialCache: VAPIDCredentialCache? = nil
    ) -> Result<Accepted, WebPushRefusal> {
        do {
            return .success(try check(subscription: subscription, policy: policy, now: nowSeconds, credentialCache: credentialCache))
        } catch {
            return .failure(error)
        }
    }

    private func check(
        subscription: Subscription?,
        policy: WebPushPolicy,
        now: Int64,
        credentialCache: VAPIDCredentialCache?
    ) throws(WebPushRefusal) -> Accepted {
        var values: [String: String] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            guard Self.readHeaders.contains(name) else { continue }
            guard values.updateValue(value, forKey: name) == nil else {
                throw WebPushRefusal(rule: .duplicateHeader, explanation: "the \(name) header is sent twice")
            }
        }

        guard let subscription else {
            throw WebPushRefusal(rule: .unknownSubscription, explanation: "the endpoint names no subscription")
        }
        if subscription.state == .expired {
            throw WebPushRefusal(rule: .expiredSubscription, explanation: "the subscription has expired")
        }

        let vapid = try VAPIDVerifier(policy: policy, cache: credentialCache).verify(
            authorization: values["authorization"],
            cryptoKey: values["crypto-key"],
            subscriptionKey: subscription.applicationServerKey,
            origin: origin,
            nowSeconds: now
        ).get()
        func refusal(_ rule: WebPushRefusal.Rule, _ explanation: String) -> WebPushRefusal {
            WebPushRefusal(rule: rule, explanation: explanation, subject: vapid.subject)
        }

        guard bodyLength <= policy.maximumBodyLength else {
            throw refusal(.bodyTooLarge, "the body is \(bodyLength) bytes, over the \(policy.maximumBodyLength)-byte limit")
        }

        let contentEncoding: ContentEncoding?
        switch values["content-encoding"].map(Self.trimmed) {
        case nil, ""?:
            guard bodyLength == 0 else {
                throw refusal(.missingContentEncoding, "a \(bodyLength)-byte body without Content-Encoding (web push bodies are aes128gcm)")
            }
            contentEncoding = nil
        case let value?:
            switch value.lowercased() {
            case "aes128gcm":
                contentEncoding = .aes128gcm
            case "aesgcm":
                guard policy.legacyContentEncoding == .accept else {
                    throw refusal(.legacyContentEncoding, "Content-Encoding aesgcm is the draft coding RFC 8291 replaced; encrypt with aes128gcm")
                }
                contentEncoding = .aesgcm
            default:
                throw refusal(.unsupportedContentEncoding, "Content-Encoding \(WebPushRefusal.quoted(value)) is not aes128gcm")
            }
            guard bodyLength > 0 else { throw refusal(.emptyEncodedBody, "Content-Encoding \(value) with an empty body") }
        }

        var notes: [String] = []
        let requestedTTL: WebPushTTL?
        var ttl: WebPushTTL
        if let value = values["ttl"] {
            guard let parsed = WebPushTTL(headerValue: value) else {
                throw refusal(.badTTL, "TTL \(WebPushRefusal.quoted(value)) is not a non-negative whole number of seconds")
            }
            requestedTTL = parsed
            ttl = parsed
        } else {
            guard let missing = policy.missingTTL else { throw refusal(.missingTTL, "no TTL header (RFC 8030 §5.2 requires one)") }
            requestedTTL = nil
            ttl = missing
            notes.append("no TTL header: kept \(missing.seconds) s")
        }
        if ttl > policy.maximumTTL {
            notes.append("TTL \(ttl.seconds) s cut to the \(policy.maximumTTL.seconds) s the push service keeps a message")
            ttl = policy.maximumTTL
        }

        let urgency: WebPushUrgency
        if let value = values["urgency"] {
            guard let parsed = WebPushUrgency(headerValue: value) else {
                throw refusal(.badUrgency, "Urgency \(WebPushRefusal.quoted(value)) is not very-low, low, normal or high")
            }
            urgency = parsed
        } else {
            urgency = .default
        }

        var topic: WebPushTopic?
        if let value = values["topic"] {
            guard let parsed = WebPushTopic(Self.trimmed(value)) else {
                throw refusal(.badTopic, "Topic \(WebPushRefusal.quoted(value)) is not 1 to 32 characters of A-Z a-z 0-9 - _")
            }
            topic = parsed
        }

        var delivery = Accepted.Delivery.deliver
        if subscription.state == .permissionRemoved {
            switch policy.removedPermission {
            case .unregistered:
                throw refusal(.permissionRemoved, "the user removed the web app's permission for notifications")
            case .answerAsSent:
                delivery = .dropAnsweredAsSent(explanation: "the user removed the web app's permission: answered as sent, not delivered")
            }
        }
        return Accepted(
            ttl: ttl,
            requestedTTL: requestedTTL,
            urgency: urgency,
            topic: topic,
            vapid: vapid,
            contentEncoding: contentEncoding,
            bodyLength: bodyLength,
            delivery: delivery,
            notes: notes
        )
    }

    private static func trimmed(_ value: String) -> String {
        let utf8 = value.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }), let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(value[first...last])
    }
}
