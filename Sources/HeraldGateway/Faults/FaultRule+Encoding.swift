import HeraldCore

extension FaultRule {
    /// The rule as JSON reads it back (docs/faults.md): the fields it was given, with its `id` and `seed`; match
    /// conditions that only scenarios set appear as `providerTokenIssuedBefore` and `perSecondAbove`. Members in key
    /// order; integers exact (a `seed` up to 2^63 − 1 reads back the same).
    public var jsonObject: JSONObject { JSONObject(jsonMembers) }

    private var jsonMembers: [String: JSONValue] {
        // A seed above 2^63 − 1 (only Swift can set one; a JSON rule cannot) has no exact JSON integer here.
        let seed = Int(exactly: seed).map(JSONValue.int) ?? .double(Double(seed))
        var object: [String: JSONValue] = ["probability": .double(probability), "seed": seed]
        if let id { object["id"] = .string(id) }
        var match: [String: JSONValue] = [:]
        if let token = self.match.token { match["token"] = .string(token) }
        if let topic = self.match.topic { match["topic"] = .string(topic) }
        if let pushType = self.match.pushType { match["pushType"] = .string(pushType) }
        if let apnsID = self.match.apnsID { match["apnsID"] = .string(apnsID) }
        if !self.match.headers.isEmpty { match["header"] = .object(self.match.headers.mapValues(JSONValue.string)) }
        if let before = self.match.providerTokenIssuedBefore { match["providerTokenIssuedBefore"] = .int(Int(before)) }
        if let above = self.match.perSecondAbove { match["perSecondAbove"] = .int(above) }
        object["match"] = .object(match)
        if let answer = effect.answer {
            object["status"] = .int(answer.reason.status)
            object["reason"] = .string(answer.reason.rawValue)
            if let timestamp = answer.timestamp { object["timestamp"] = .int(Int(timestamp)) }
        }
        if let delay = effect.delayMilliseconds {
            if delay.lowerBound == delay.upperBound {
                object["delayMs"] = .int(Int(delay.lowerBound))
            } else {
                object["delay"] = .object(["minMs": .int(Int(delay.lowerBound)), "maxMs": .int(Int(delay.upperBound))])
            }
        }
        switch effect.connection {
        case .goAway(let reason)?: object["goaway"] = .string(reason)
        case .reset?: object["reset"] = .bool(true)
        case .close?: object["close"] = .bool(true)
        case .stall(let milliseconds)?: object["stallMs"] = .int(Int(milliseconds))
        case nil: break
        }
        if let device = effect.device {
            if let offline = device.offlineMilliseconds {
                object["deviceOffline"] = .bool(true)
                object["forMs"] = .int(Int(offline))
            }
            if let delay = device.acknowledgementDelayMilliseconds { object["ackDelayMs"] = .int(Int(delay)) }
            if device.extensionTimeout { object["extensionTimeout"] = .bool(true) }
        }
        if let count { object["count"] = .int(count) }
        if let fromMilliseconds { object["from"] = .int(Int(fromMilliseconds)) }
        if let untilMilliseconds { object["until"] = .int(Int(untilMilliseconds)) }
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
    public var jsonObject: JSONObject { JSONObject(jsonMembers) }

    /// ``jsonObject`` with the rule's `state` at `nowMilliseconds`.
    public func jsonObject(nowMilliseconds: Int64) -> JSONObject {
        var object = jsonMembers
        object["state"] = .string(state(atMilliseconds: nowMilliseconds).rawValue)
        return JSONObject(object)
    }

    private var jsonMembers: [String: JSONValue] {
        var object = rule.jsonObject.dictionary
        object["applied"] = .int(failed)
        object["remaining"] = remaining.map { .int($0) } ?? .null
        return object
    }
}
