import HeraldCore

/// A web push message as the push service stores it and the device link carries it: the notification's payload
/// (docs/web-push.md, "What is stored"). A JSON object, because every payload Herald stores and sends to a device is
/// one, with the encrypted body in base64url — the push service never decrypts it:
///
/// ```json
/// {"web_push_message":{"encoding":"aes128gcm","body":"<base64url>","urgency":"normal","ttl":3600,
///  "subject":"mailto:ops@example.com"}}
/// ```
///
/// `encoding` is `null` and `body` empty for an empty push (RFC 8030 allows one). The `Topic` travels as the
/// notification's collapse id. `subject` is the VAPID `sub` that sent it (at most ``maximumSubjectLength`` bytes, cut
/// at a character boundary beyond), so that the inspection API and the trace say who sent each message.
public struct WebPushStoredMessage: Hashable, Sendable {
    /// The body's content coding; `nil` for an empty push.
    public var encoding: WebPushRequest.ContentEncoding?
    /// The encrypted body as received, at most ``WebPushPolicy/maximumBodyLength`` bytes.
    public var body: [UInt8]
    /// The request's `Urgency`.
    public var urgency: WebPushUrgency
    /// The `TTL` the message was kept for.
    public var ttl: WebPushTTL
    /// The VAPID `sub` of the application server that sent it, when known.
    public var subject: String?

    /// The longest `subject` kept, in UTF-8 bytes: a real one is an address or an origin.
    public static let maximumSubjectLength = 255

    /// The member that marks a payload as a web push message.
    public static let member = "web_push_message"

    /// The largest payload a stored message makes, in bytes: a 4096-byte body in base64url (5462 characters) and the
    /// rest of the object. The store's payload column takes up to 8192.
    public static let maximumPayloadLength = 8192

    /// A message.
    public init(encoding: WebPushRequest.ContentEncoding?, body: [UInt8], urgency: WebPushUrgency, ttl: WebPushTTL, subject: String? = nil) {
        self.encoding = encoding
        self.body = body
        self.urgency = urgency
        self.ttl = ttl
        self.subject = subject.map { subject in
            var cut = Substring(subject)
            while cut.utf8.count > Self.maximumSubjectLength { cut = cut.dropLast() }
            return String(cut)
        }
    }

    /// The payload's bytes.
    public var payload: [UInt8] {
        var text = "{\"\(Self.member)\":{\"encoding\":"
        text += encoding.map { "\"\($0.rawValue)\"" } ?? "null"
        text += ",\"body\":\"\(Base64URL.encode(body))\",\"urgency\":\"\(urgency.rawValue)\",\"ttl\":\(ttl.seconds)"
        if let subject { text += ",\"subject\":" + JSONString.quoted(subject) }
        text += "}}"
        return Array(text.utf8)
    }

    /// The message in a payload, or `nil` when the payload is not one ``payload`` makes.
    public init?(payload: some Collection<UInt8>) {
        guard payload.count <= Self.maximumPayloadLength,
            let message = (try? JSONParser.parse(payload))?.dictionaryValue?[Self.member]?.dictionaryValue,
            let bodyText = message["body"]?.stringValue,
            let body = Base64URL.decode(bodyText.utf8),
            let urgency = message["urgency"]?.stringValue.flatMap(WebPushUrgency.init(rawValue:)),
            let ttl = message["ttl"]?.integerValue
        else { return nil }
        let encoding: WebPushRequest.ContentEncoding?
        switch message["encoding"] {
        case .string(let text)?:
            guard let known = WebPushRequest.ContentEncoding(rawValue: text) else { return nil }
            encoding = known
        case .null?, nil: encoding = nil
        default: return nil
        }
        self.init(
            encoding: encoding,
            body: body,
            urgency: urgency,
            ttl: WebPushTTL(seconds: Int64(ttl)),
            subject: message["subject"]?.stringValue
        )
    }
}

extension WebPushUrgency {
    /// The APNs priority a message of this urgency is stored with, which decides how the delivery engine sends it
    /// (docs/delivery.md): `high` and `normal` at once (10), `low` in bursts (5), `very-low` at power-saving priority (1)
    /// *(chosen)*: RFC 8030 §5.3 leaves how a push service honours urgency to it.
    public var apnsPriority: Int {
        switch self {
        case .high, .normal: 10
        case .low: 5
        case .veryLow: 1
        }
    }
}
