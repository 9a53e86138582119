import Foundation
import HeraldCore

extension FaultRule {
    /// The rule as JSON reads it back (docs/faults.md): the fields it was given, with its `id` and `seed`; match
    /// conditions that only scenarios set appear as `providerTokenIssuedBefore` and `perSecondAbove`.
    public var jsonObject: [String: Any] {
        var object: [String: Any] = ["probability": probability, "seed": NSNumber(value: seed)]
        if let id { object["id"] = id }
        var match: [String: Any] = [:]
        if let token = self.match.token { match["token"] = token }
        if let topic = self.match.topic { match["topic"] = topic }
        if let pushType = self.match.pushType { match["pushType"] = pushType }
        if let apnsID = self.match.apnsID { match["apnsID"] = apnsID }
        if !self.match.headers.isEmpty { match["header"] = self.match.headers }
        if let before = self.match.providerTokenIssuedBefore { match["providerTokenIssuedBefore"] = before }
        if let above = self.match.perSecondAbove { match["perSecondAbove"] = above }
        object["match"] = match
        if let answer = effect.answer {
            object["status"] = answer.reason.status
            object["reason"] = answer.reason.rawValue
            if let timestamp = answer.timestamp { object["timestamp"] = timestamp }
        }
        if let delay = effect.delayMilliseconds {
            if delay.lowerBound == delay.upperBound {
                object["delayMs"] = delay.lowerBound
            } else {
                object["delay"] = ["minMs": delay.lowerBound, "maxMs": delay.upperBound]
            }
        }
        switch effect.connection {
        case .goAway(let reason)?: object["goaway"] = reason
        case .reset?: object["reset"] = true
        case .close?: object["close"] = true
        case .stall(let milliseconds)?: object["stallMs"] = milliseconds
        case nil: break
        }
        if let device = effect.device {
            if let offline = device.offlineMilliseconds {
                object["deviceOffline"] = true
                object["forMs"] = offline
            }
            if let delay = device.acknowledgementDelayMilliseconds { object["ackDelayMs"] = delay }
            if device.extensionTimeout { object["extensionTimeout"] = true }
        }
        if let count { object["count"] = count }
        if let fromMilliseconds { object["from"] = fromMilliseconds }
        if let untilMilliseconds { object["until"] = untilMilliseconds }
        return object
    }
}

extension FaultTable.Entry {
    /// Where a rule stands at a time (docs/faults.md, "Listing rules").
    public enum State: String, Sendable {
        /// Before its `from`: it applies to nothing yet.
        case pending
        /// It may apply to the next request.
        case inForce = "in-force"
        /// Its `count` is used up; it stays listed until it is removed.
        case spent
        /// Past its `until` (an `apns-outage` that is over); it stays listed until it is removed.
        case expired
    }

    /// The rule's state at `nowMilliseconds`, as ``FaultTable/hit(for:nowMilliseconds:)`` decides it.
    public func state(atMilliseconds nowMilliseconds: Int64) -> State {
        if let until = rule.untilMilliseconds, nowMilliseconds >= until { return .expired }
        if remaining == 0 { return .spent }
        if let from = rule.fromMilliseconds, nowMilliseconds < from { return .pending }
        return .inForce
    }

    /// The rule's JSON with what it has done: `applied` (requests it applied to) and `remaining` (`null`: no limit).
    public var jsonObject: [String: Any] {
        var object = rule.jsonObject
        object["applied"] = failed
        object["remaining"] = remaining.map { $0 as Any } ?? NSNull()
        return object
    }

    /// ``jsonObject`` with the rule's `state` at `nowMilliseconds`.
    public func jsonObject(nowMilliseconds: Int64) -> [String: Any] {
        var object = jsonObject
        object["state"] = state(atMilliseconds: nowMilliseconds).rawValue
        return object
    }
}
