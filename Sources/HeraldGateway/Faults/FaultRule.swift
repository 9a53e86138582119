import Foundation
import HeraldAuth
import HeraldCore

/// A failure on demand (docs/faults.md): which provider requests it matches, what the gateway answers them
/// instead, and how often.
///
/// Rules come from `herald serve --faults FILE`, the testing kit, and (later) the web port. A rule's answer is a
/// row of Apple's table: the notification is not stored, exactly as when APNs itself fails.
public struct FaultRule: Sendable, Hashable {
    /// The rule's name, unique in its ``FaultTable``; made (`f1`, `f2`, …) when not given.
    public var id: String?
    /// Which requests it applies to; an empty match applies to every request.
    public var match: FaultMatch
    /// The answer instead of the real one.
    public var effect: FaultEffect
    /// How many requests it fails before it is spent; `nil`: no limit.
    public var count: Int?
    /// The chance that a matching request is failed, in (0, 1]; 1 unless given.
    public var probability: Double
    /// The seed of the rule's own random sequence, so that the same requests are failed on every run.
    public var seed: UInt64
    /// The first moment it applies, in milliseconds since the epoch.
    public var fromMilliseconds: Int64?
    /// The moment it stops applying, in milliseconds since the epoch.
    public var untilMilliseconds: Int64?

    /// Creates a rule.
    public init(
        id: String? = nil,
        match: FaultMatch = FaultMatch(),
        effect: FaultEffect,
        count: Int? = nil,
        probability: Double = 1,
        seed: UInt64 = 0,
        fromMilliseconds: Int64? = nil,
        untilMilliseconds: Int64? = nil
    ) {
        self.id = id
        self.match = match
        self.effect = effect
        self.count = count
        self.probability = probability
        self.seed = seed
        self.fromMilliseconds = fromMilliseconds
        self.untilMilliseconds = untilMilliseconds
    }
}

/// Which provider requests a ``FaultRule`` applies to: every condition given must hold.
public struct FaultMatch: Sendable, Hashable {
    /// The device token in the path, in hexadecimal (compared without case).
    public var token: String?
    /// `apns-topic`, exactly.
    public var topic: String?
    /// `apns-push-type`, exactly.
    public var pushType: String?
    /// `apns-id` (compared without case).
    public var apnsID: String?
    /// Header fields the provider API reads (`apns-*`, `authorization`, `:path`, `:method`), by lowercase name.
    public var headers: [String: String]
    /// Only requests whose provider token (JWT) was issued before this second (its `iat`, seconds since the epoch):
    /// the `token-expired` scenario. Requests without a readable token do not match.
    public var providerTokenIssuedBefore: Int64?
    /// Only a device token's requests beyond this many in one second (counted per token, per rule, from the
    /// start of each second): the `throttled-device` scenario.
    public var perSecondAbove: Int?

    /// A match; with no condition it applies to every request.
    public init(
        token: String? = nil,
        topic: String? = nil,
        pushType: String? = nil,
        apnsID: String? = nil,
        headers: [String: String] = [:],
        providerTokenIssuedBefore: Int64? = nil,
        perSecondAbove: Int? = nil
    ) {
        self.token = token?.lowercased()
        self.topic = topic
        self.pushType = pushType
        self.apnsID = apnsID?.lowercased()
        self.headers = headers
        self.providerTokenIssuedBefore = providerTokenIssuedBefore
        self.perSecondAbove = perSecondAbove
    }

    /// The header names a match may name: those the provider API reads (others are not kept per request).
    public static let matchableHeaders: Set<String> = [
        ":method", ":path", "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type",
        "apns-collapse-id",
    ]

    /// Whether a request matches.
    public func matches(_ head: ProviderRequestHead) -> Bool {
        if let token {
            // A web push subscription's id is a token too (docs/faults.md): a rule faults its endpoint `/push/<id>`.
            switch head.pathTarget {
            case .device(let sent), .webPush(let sent): guard sent.lowercased() == token else { return false }
            default: return false
            }
        }
        if let topic, head.topic != topic { return false }
        if let pushType, head.pushType != pushType { return false }
        if let apnsID, head.apnsID?.lowercased() != apnsID { return false }
        for (name, value) in headers where Self.value(of: name, in: head) != value {
            return false
        }
        if let providerTokenIssuedBefore {
            guard case .success(let text) = BearerAuthorization.token(in: head.authorization),
                let token = try? ProviderToken(parsing: text), token.issuedAt < providerTokenIssuedBefore
            else { return false }
        }
        return true
    }

    private static func value(of name: String, in head: ProviderRequestHead) -> String? {
        switch name {
        case ":method": head.method
        case ":path": head.path
        case "authorization": head.authorization
        case "apns-id": head.apnsID
        case "apns-expiration": head.expiration
        case "apns-priority": head.priority
        case "apns-topic": head.topic
        case "apns-push-type": head.pushType
        case "apns-collapse-id": head.collapseID
        default: nil
        }
    }
}

/// What a ``FaultRule`` does to a request it matches: answer a row of Apple's table instead, wait before
/// answering, and what it does to the connection — any of these together; or, for a request it accepts, what
/// happens on the device side (with a wait at most).
public struct FaultEffect: Sendable, Hashable {
    /// The answer instead of the real one; `nil`: the real answer (after ``delayMilliseconds``).
    public var answer: FaultAnswer?
    /// How long to wait before the request is handled and answered, in milliseconds: one value, or a range from
    /// which each request's wait is drawn (with the rule's seed).
    public var delayMilliseconds: ClosedRange<Int64>?

    /// What happens to the connection: GOAWAY after the answer, a reset stream or a closed connection instead of
    /// one, or a pause in reading.
    public var connection: FaultConnectionEffect?

    /// What happens on the device side once the notification is accepted (`deviceOffline`, `ackDelayMs`,
    /// `extensionTimeout`); its ``DeviceFault/ruleID`` is filled in when the rule applies.
    public var device: DeviceFault?

    /// An effect; at least one part should be given.
    public init(
        answer: FaultAnswer? = nil,
        delayMilliseconds: ClosedRange<Int64>? = nil,
        connection: FaultConnectionEffect? = nil,
        device: DeviceFault? = nil
    ) {
        self.answer = answer
        self.delayMilliseconds = delayMilliseconds
        self.connection = connection
        self.device = device
    }

    /// Answer this row of Apple's table (`status` is the reason's); `timestamp` (milliseconds since the epoch) goes
    /// with a `410`, the time of the request when `nil`.
    public static func answer(_ reason: APNSReason, timestamp: Int64?) -> FaultEffect {
        FaultEffect(answer: FaultAnswer(reason: reason, timestamp: timestamp))
    }

    /// Handle the request normally, after waiting this long.
    public static func delay(milliseconds: ClosedRange<Int64>) -> FaultEffect {
        FaultEffect(delayMilliseconds: milliseconds)
    }
}

/// A row of Apple's table that a ``FaultRule`` answers with.
public struct FaultAnswer: Sendable, Hashable {
    /// The reason; the status is its status.
    public var reason: APNSReason
    /// With a `410`: the body's `timestamp`, milliseconds since the epoch; `nil`: the time of the request.
    public var timestamp: Int64?

    /// An answer.
    public init(reason: APNSReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }
}

/// What a ``FaultRule`` does to the provider's connection.
public enum FaultConnectionEffect: Sendable, Hashable {
    /// After the answer, GOAWAY with `{"reason": …}` (e.g. `Shutdown`, `IdleTimeout`): the connection finishes its
    /// streams and closes, as APNs does when a server goes away.
    case goAway(reason: String)
    /// RST_STREAM (`INTERNAL_ERROR`) instead of an answer; the notification is not stored. Over HTTP/1.1, the
    /// connection is closed.
    case reset
    /// The TCP connection is closed instead of an answer; the notification is not stored.
    case close
    /// After the answer, nothing more is read from the connection for this long.
    case stall(milliseconds: Int64)
}
