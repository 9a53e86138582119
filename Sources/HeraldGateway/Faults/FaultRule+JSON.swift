import Foundation
import HeraldCore

/// Why a fault rule was refused: one line naming the field and what is wrong with it.
public struct FaultRuleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message, e.g. `reason 'Unregistered' is Apple's answer with status 410, not 503`.
    public let message: String

    /// An error with this message.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension FaultRule {
    /// The fields a rule may have (docs/faults.md); any other is refused, so that a typo is not a silent no-op.
    static let fields: Set<String> = [
        "id", "match", "status", "reason", "timestamp", "delayMs", "delay", "goaway", "reset", "close", "stallMs", "deviceOffline",
        "forMs", "ackDelayMs", "extensionTimeout", "count", "probability", "seed", "from", "until",
    ]
    /// The fields of `match`.
    static let matchFields: Set<String> = ["token", "topic", "pushType", "apnsID", "header", "providerTokenIssuedBefore", "perSecondAbove"]
    /// Effects that rules of this version cannot have yet: named so that the error says so instead of "unknown".
    static let laterEffects: Set<String> = ["stall"]
    /// The reason a status alone stands for, where Apple's table has one obvious row.
    static let defaultReasons: [Int: APNSReason] = [
        404: .badPath, 405: .methodNotAllowed, 410: .unregistered, 413: .payloadTooLarge, 429: .tooManyRequests,
        500: .internalServerError, 503: .serviceUnavailable,
    ]

    /// Reads a rule from its JSON text.
    public init(json: some Collection<UInt8>) throws(FaultRuleError) {
        guard let object = try Self.jsonValue(json, what: "a rule must be a JSON object").dictionaryValue else {
            throw FaultRuleError("a rule must be a JSON object")
        }
        try self.init(jsonObject: object)
    }

    /// Reads one rule, or a scenario (`{"scenario": "apns-outage", "seconds": 30}`) as the rule it stands for from
    /// `nowMilliseconds` on.
    public static func parse(json: some Collection<UInt8>, nowMilliseconds: Int64) throws(FaultRuleError) -> FaultRule {
        try entry(try jsonValue(json, what: "a rule must be a JSON object"), nowMilliseconds: nowMilliseconds)
    }

    /// The value ``JSONParser`` reads from the text; `what` names what it should be, for the error.
    private static func jsonValue(_ json: some Collection<UInt8>, what: String) throws(FaultRuleError) -> JSONValue {
        do {
            return try JSONParser.parse(json)
        } catch {
            throw FaultRuleError("\(what): the text is not JSON")
        }
    }

    /// A rule or a scenario's rule.
    static func entry(_ value: JSONValue, nowMilliseconds: Int64) throws(FaultRuleError) -> FaultRule {
        guard let object = value.dictionaryValue else { throw FaultRuleError("a rule must be a JSON object") }
        guard let scenario = try FaultScenario.parse(object) else { return try FaultRule(jsonObject: object) }
        return scenario.rule(id: try id(object), nowMilliseconds: nowMilliseconds)
    }

    /// Reads a list of rules and scenarios from a file's JSON text: an array, or `{"rules": [...]}`; scenarios start
    /// at `nowMilliseconds`.
    public static func list(json: some Collection<UInt8>, nowMilliseconds: Int64) throws(FaultRuleError) -> [FaultRule] {
        let object = try jsonValue(json, what: "the rules must be a JSON array of rules, or an object with \"rules\"")
        let items: [JSONValue]
        if let array = object.arrayValue {
            items = array
        } else if let wrapper = object.dictionaryValue, wrapper.count == 1, let array = wrapper["rules"]?.arrayValue {
            items = array
        } else {
            throw FaultRuleError("the rules must be a JSON array of rules, or an object with \"rules\"")
        }
        var rules: [FaultRule] = []
        for (index, item) in items.enumerated() {
            do {
                rules.append(try entry(item, nowMilliseconds: nowMilliseconds))
            } catch {
                throw FaultRuleError("rule \(index + 1): \(error.message)")
            }
        }
        return rules
    }

    /// Reads a rule from its JSON object's members.
    init(jsonObject object: [String: JSONValue]) throws(FaultRuleError) {
        for key in object.keys.sorted() where !Self.fields.contains(key) {
            if Self.laterEffects.contains(key) {
                throw FaultRuleError(
                    "'\(key)' is not an effect this version of Herald has; it has status and reason, delayMs, goaway, reset, close, stallMs, deviceOffline, ackDelayMs and extensionTimeout (docs/faults.md)"
                )
            }
            throw FaultRuleError("unknown field '\(key)'; a rule has \(Self.fields.sorted().joined(separator: ", "))")
        }
        let id = try Self.id(object)
        let match = try Self.match(object["match"])
        let effect = try Self.effect(object)
        let count = try Self.integer(object, "count")
        if let count, count < 1 { throw FaultRuleError("'count' must be 1 or more") }
        let probability = try Self.number(object, "probability") ?? 1
        guard probability > 0, probability <= 1 else { throw FaultRuleError("'probability' must be more than 0 and at most 1") }
        let seed = try Self.integer(object, "seed")
        if let seed, seed < 0 { throw FaultRuleError("'seed' must be 0 or more") }
        let from = try Self.time(object, "from")
        let until = try Self.time(object, "until")
        self.init(
            id: id,
            match: match,
            effect: effect,
            count: count.map(Int.init),
            probability: probability,
            seed: seed.map { UInt64($0) } ?? UInt64.random(in: 0...UInt64(Int64.max)),
            fromMilliseconds: from,
            untilMilliseconds: until
        )
    }

    private static func id(_ object: [String: JSONValue]) throws(FaultRuleError) -> String? {
        let id = try string(object, "id")
        if let id {
            guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(isNameByte) else {
                throw FaultRuleError("'id' must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
        }
        return id
    }

    private static func match(_ value: JSONValue?) throws(FaultRuleError) -> FaultMatch {
        guard let value else { return FaultMatch() }
        guard let object = value.dictionaryValue else { throw FaultRuleError("'match' must be an object") }
        for key in object.keys.sorted() where !matchFields.contains(key) {
            throw FaultRuleError("unknown field 'match.\(key)'; a match has \(matchFields.sorted().joined(separator: ", "))")
        }
        let token = try string(object, "token", in: "match.")
        if let token, DeviceToken(hex: token) == nil {
            throw FaultRuleError("'match.token' must be a device token in hexadecimal")
        }
        var headers: [String: String] = [:]
        if let header = object["header"] {
            guard let fields = header.dictionaryValue else { throw FaultRuleError("'match.header' must be an object of names and values") }
            for (name, value) in fields {
                let lowercased = name.lowercased()
                guard FaultMatch.matchableHeaders.contains(lowercased) else {
                    throw FaultRuleError(
                        "'match.header' names '\(name)'; it can name \(FaultMatch.matchableHeaders.sorted().joined(separator: ", "))"
                    )
                }
                guard let text = value.stringValue else { throw FaultRuleError("'match.header.\(name)' must be a string") }
                headers[lowercased] = text
            }
        }
        let issuedBefore = try integer(object, "providerTokenIssuedBefore", in: "match.")
        let perSecondAbove = try integer(object, "perSecondAbove", in: "match.")
        if let perSecondAbove, perSecondAbove < 1 { throw FaultRuleError("'match.perSecondAbove' must be 1 or more") }
        return FaultMatch(
            token: token,
            topic: try string(object, "topic", in: "match."),
            pushType: try string(object, "pushType", in: "match."),
            apnsID: try string(object, "apnsID", in: "match."),
            headers: headers,
            providerTokenIssuedBefore: issuedBefore,
            perSecondAbove: perSecondAbove.map { Int($0) }
        )
    }

    /// The longest wait a rule may ask for: a provider's own timeout is shorter; a test should not hang longer.
    static let maximumDelayMilliseconds: Int64 = 600_000

    private static func effect(_ object: [String: JSONValue]) throws(FaultRuleError) -> FaultEffect {
        let device = try device(object)
        var effect = try answerAndDelay(object, hasDeviceEffect: device != nil)
        effect.connection = try connection(object)
        switch effect.connection {
        case .reset?, .close?:
            if effect.answer != nil { throw FaultRuleError("'reset' and 'close' give no answer: leave out 'status' and 'reason'") }
        default:
            break
        }
        if device != nil {
            // Why: a device-side effect acts on a notification that was accepted and stored; an error answer, a reset
            // or a closed connection means it was not, and GOAWAY or a stall is about the provider's connection.
            if effect.answer != nil {
                throw FaultRuleError("a device-side effect acts on an accepted notification: leave out 'status' and 'reason'")
            }
            if effect.connection != nil {
                throw FaultRuleError(
                    "a device-side effect combines with 'delayMs' or 'delay' only, not with 'goaway', 'reset', 'close' or 'stallMs'"
                )
            }
        }
        effect.device = device
        return effect
    }

    /// `deviceOffline` (with `forMs`), `ackDelayMs` and `extensionTimeout`: any of them together, or none.
    private static func device(_ object: [String: JSONValue]) throws(FaultRuleError) -> DeviceFault? {
        let limit = "1 to \(maximumDelayMilliseconds) (\(maximumDelayMilliseconds / 60_000) minutes)"
        let offline = try flag(object, "deviceOffline")
        let forMs = try integer(object, "forMs")
        if forMs != nil, !offline { throw FaultRuleError("'forMs' goes with \"deviceOffline\": true") }
        if offline, forMs == nil { throw FaultRuleError("'deviceOffline' needs 'forMs', how long the device stays offline (\(limit))") }
        if let forMs, !(1...maximumDelayMilliseconds).contains(forMs) { throw FaultRuleError("'forMs' must be \(limit)") }
        let ackDelay = try integer(object, "ackDelayMs")
        if let ackDelay, !(1...maximumDelayMilliseconds).contains(ackDelay) { throw FaultRuleError("'ackDelayMs' must be \(limit)") }
        let extensionTimeout = try flag(object, "extensionTimeout")
        guard offline || ackDelay != nil || extensionTimeout else { return nil }
        return DeviceFault(offlineMilliseconds: forMs, acknowledgementDelayMilliseconds: ackDelay, extensionTimeout: extensionTimeout)
    }

    /// A field that is `true` when given (`false` would be a rule that silently does nothing).
    private static func flag(_ object: [String: JSONValue], _ key: String) throws(FaultRuleError) -> Bool {
        guard let value = object[key] else { return false }
        guard value == .bool(true) else { throw FaultRuleError("'\(key)' must be true") }
        return true
    }

    /// `goaway`, `reset`, `close` or `stallMs`: at most one.
    private static func connection(_ object: [String: JSONValue]) throws(FaultRuleError) -> FaultConnectionEffect? {
        var effects: [FaultConnectionEffect] = []
        if let reason = try string(object, "goaway") {
            guard reason.utf8.count <= 64, reason.utf8.allSatisfy(isNameByte) else {
                throw FaultRuleError("'goaway' must be a reason: 1 to 64 letters, digits, '.', '_' or '-'")
            }
            effects.append(.goAway(reason: reason))
        }
        for (key, effect) in [("reset", FaultConnectionEffect.reset), ("close", .close)] {
            if try flag(object, key) { effects.append(effect) }
        }
        if let stall = try integer(object, "stallMs") {
            guard (1...maximumDelayMilliseconds).contains(stall) else {
                throw FaultRuleError("'stallMs' must be 1 to \(maximumDelayMilliseconds) (\(maximumDelayMilliseconds / 60_000) minutes)")
            }
            effects.append(.stall(milliseconds: stall))
        }
        guard effects.count <= 1 else { throw FaultRuleError("give one of 'goaway', 'reset', 'close' and 'stallMs'") }
        return effects.first
    }

    private static func answerAndDelay(_ object: [String: JSONValue], hasDeviceEffect: Bool) throws(FaultRuleError) -> FaultEffect {
        let delay = try delay(object)
        let status = try integer(object, "status")
        let reasonName = try string(object, "reason")
        let timestamp = try integer(object, "timestamp")
        let reason: APNSReason
        switch (status, reasonName) {
        case (nil, nil):
            let connectionKeys = ["goaway", "reset", "close", "stallMs"]
            guard delay != nil || hasDeviceEffect || connectionKeys.contains(where: { object[$0] != nil }) else {
                throw FaultRuleError(
                    "a rule needs an effect: 'status' and 'reason' (a row of Apple's table), 'delayMs', 'goaway', 'reset', 'close', 'stallMs', 'deviceOffline', 'ackDelayMs' or 'extensionTimeout'"
                )
            }
            if timestamp != nil { throw FaultRuleError("'timestamp' goes with a 410 answer only") }
            return FaultEffect(delayMilliseconds: delay)
        case (let status?, nil):
            guard let known = defaultReasons[Int(status)] else {
                throw FaultRuleError(statusMessage(Int(status)))
            }
            reason = known
        case (let status, let name?):
            reason = APNSReason(rawValue: name)
            guard APNSReason.all.contains(reason) else {
                throw FaultRuleError("'reason' \(name) is not in Apple's table (docs/provider-api.md)")
            }
            if let status, reason.status != Int(status) {
                throw FaultRuleError("'reason' \(name) is Apple's answer with status \(reason.status), not \(status)")
            }
        }
        if timestamp != nil, reason.status != 410 {
            throw FaultRuleError("'timestamp' goes with a 410 answer only")
        }
        return FaultEffect(answer: FaultAnswer(reason: reason, timestamp: timestamp), delayMilliseconds: delay)
    }

    /// `delayMs` (one value) or `delay` (`{"minMs": …, "maxMs": …}`), at most ``maximumDelayMilliseconds``.
    private static func delay(_ object: [String: JSONValue]) throws(FaultRuleError) -> ClosedRange<Int64>? {
        let limit = "at most \(maximumDelayMilliseconds) (\(maximumDelayMilliseconds / 60_000) minutes)"
        if let fixed = try integer(object, "delayMs") {
            guard object["delay"] == nil else { throw FaultRuleError("give 'delayMs' or 'delay', not both") }
            guard (0...maximumDelayMilliseconds).contains(fixed) else { throw FaultRuleError("'delayMs' must be 0 to \(limit)") }
            return fixed...fixed
        }
        guard let value = object["delay"] else { return nil }
        guard let range = value.dictionaryValue, Set(range.keys) == ["minMs", "maxMs"],
            let minimum = try? integer(range, "minMs"), let maximum = try? integer(range, "maxMs")
        else { throw FaultRuleError("'delay' must be {\"minMs\": …, \"maxMs\": …} with two integers") }
        // Either order: a JSON schema cannot say that one member is at most another (docs/inspection-api.json).
        guard min(minimum, maximum) >= 0, max(minimum, maximum) <= maximumDelayMilliseconds else {
            throw FaultRuleError("'delay' must have minMs and maxMs from 0 to \(limit)")
        }
        return min(minimum, maximum)...max(minimum, maximum)
    }

    private static func statusMessage(_ status: Int) -> String {
        let statuses = Set(APNSReason.all.map(\.status)).sorted()
        guard statuses.contains(status) else {
            return "'status' \(status) is not in Apple's table (\(statuses.map(String.init).joined(separator: ", ")))"
        }
        let reasons = APNSReason.all.filter { $0.status == status }.map(\.rawValue).sorted()
        return "'status' \(status) has several reasons; name one in 'reason' (\(reasons.joined(separator: ", ")))"
    }

    private static func string(_ object: [String: JSONValue], _ key: String, in prefix: String = "") throws(FaultRuleError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue, !text.isEmpty else { throw FaultRuleError("'\(prefix)\(key)' must be a non-empty string") }
        return text
    }

    static func integer(_ object: [String: JSONValue], _ key: String, in prefix: String = "") throws(FaultRuleError) -> Int64? {
        guard let value = object[key] else { return nil }
        // Exactly: `true` is not 1, and an integer above 2^53 (a `seed`) keeps its last digits.
        let integer: Int64?
        switch value {
        case .int(let int): integer = Int64(exactly: int)
        // A number written with a fraction or an exponent is an integer where a double holds every integer (±2^53).
        case .double(let double) where double.magnitude <= 0x20_0000_0000_0000: integer = Int64(exactly: double)
        default: integer = nil
        }
        guard let integer else { throw FaultRuleError("'\(prefix)\(key)' must be an integer") }
        return integer
    }

    private static func number(_ object: [String: JSONValue], _ key: String) throws(FaultRuleError) -> Double? {
        guard let value = object[key] else { return nil }
        guard let number = value.doubleValue else { throw FaultRuleError("'\(key)' must be a number") }
        return number
    }

    /// Milliseconds since the epoch, or an ISO 8601 date with a time zone.
    private static func time(_ object: [String: JSONValue], _ key: String) throws(FaultRuleError) -> Int64? {
        guard let value = object[key] else { return nil }
        if let text = value.stringValue {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let plain = ISO8601DateFormatter()
            guard let date = formatter.date(from: text) ?? plain.date(from: text) else {
                throw FaultRuleError("'\(key)' must be milliseconds since the epoch or an ISO 8601 date, e.g. 2026-11-25T12:00:00Z")
            }
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        return try integer(object, key)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
