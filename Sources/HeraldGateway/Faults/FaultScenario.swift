import HeraldCore

/// A bad day by name (docs/faults.md, "Scenarios"): a preset that becomes ordinary ``FaultRule``s when it is added.
public enum FaultScenario: Sendable, Hashable {
    /// For `seconds` from now, every request gets `503 ServiceUnavailable` and its connection GOAWAY `Shutdown`.
    case apnsOutage(seconds: Int)
    /// Requests signed with a provider token issued before now get `403 ExpiredProviderToken`; a token signed from
    /// now on is accepted.
    case tokenExpired
    /// From `atMilliseconds` (milliseconds since the epoch), the device token gets `410 Unregistered` with that
    /// time as its `timestamp`.
    case appUninstalled(token: String, atMilliseconds: Int64?)
    /// The device token's requests beyond `perSecond` in a second get `429 TooManyRequests`.
    case throttledDevice(token: String, perSecond: Int)

    /// The scenarios' names, as JSON gives them.
    public static let names = ["apns-outage", "token-expired", "app-uninstalled", "throttled-device"]

    /// The rule it stands for, named `id` (or made when `nil`), starting at `nowMilliseconds`.
    public func rule(id: String?, nowMilliseconds: Int64) -> FaultRule {
        switch self {
        case .apnsOutage(let seconds):
            return FaultRule(
                id: id,
                effect: FaultEffect(answer: FaultAnswer(reason: .serviceUnavailable), connection: .goAway(reason: APNSReason.shutdown.rawValue)),
                fromMilliseconds: nowMilliseconds,
                untilMilliseconds: nowMilliseconds + Int64(seconds) * 1000
            )
        case .tokenExpired:
            return FaultRule(
                id: id,
                match: FaultMatch(providerTokenIssuedBefore: nowMilliseconds / 1000),
                effect: .answer(.expiredProviderToken, timestamp: nil)
            )
        case .appUninstalled(let token, let at):
            let at = at ?? nowMilliseconds
            return FaultRule(id: id, match: FaultMatch(token: token), effect: .answer(.unregistered, timestamp: at), fromMilliseconds: at)
        case .throttledDevice(let token, let perSecond):
            return FaultRule(id: id, match: FaultMatch(token: token, perSecondAbove: perSecond), effect: .answer(.tooManyRequests, timestamp: nil))
        }
    }
}

extension FaultScenario {
    /// The fields of a scenario object.
    static let fields: Set<String> = ["scenario", "id", "seconds", "token", "at", "perSecond"]

    /// Reads `{"scenario": NAME, …}` with the fields its scenario takes; `nil` for an object without `scenario`.
    static func parse(_ object: [String: JSONValue]) throws(FaultRuleError) -> FaultScenario? {
        guard let value = object["scenario"] else { return nil }
        guard let name = value.stringValue else { throw FaultRuleError("'scenario' must be one of \(names.joined(separator: ", "))") }
        let allowed: Set<String>
        let scenario: FaultScenario
        switch name {
        case "apns-outage":
            allowed = ["seconds"]
            guard let seconds = try? FaultRule.integer(object, "seconds"), (1...86_400).contains(seconds) else {
                throw FaultRuleError("apns-outage needs 'seconds', 1 to 86400")
            }
            scenario = .apnsOutage(seconds: Int(seconds))
        case "token-expired":
            allowed = []
            scenario = .tokenExpired
        case "app-uninstalled":
            allowed = ["token", "at"]
            let token = try token(object, name)
            let at: Int64?
            do {
                at = try FaultRule.integer(object, "at")
            } catch {
                throw FaultRuleError("'at' must be milliseconds since the epoch")
            }
            scenario = .appUninstalled(token: token, atMilliseconds: at)
        case "throttled-device":
            allowed = ["token", "perSecond"]
            guard let perSecond = try? FaultRule.integer(object, "perSecond"), perSecond >= 1 else {
                throw FaultRuleError("throttled-device needs 'perSecond', 1 or more")
            }
            scenario = .throttledDevice(token: try token(object, name), perSecond: Int(perSecond))
        default:
            throw FaultRuleError("'scenario' \(name) is none of \(names.joined(separator: ", "))")
        }
        for key in object.keys.sorted() where !allowed.union(["scenario", "id"]).contains(key) {
            throw FaultRuleError("\(name) takes \(allowed.isEmpty ? "no field but 'id'" : allowed.sorted().joined(separator: ", ")), not '\(key)'")
        }
        return scenario
    }

    private static func token(_ object: [String: JSONValue], _ name: String) throws(FaultRuleError) -> String {
        guard let token = object["token"]?.stringValue, DeviceToken(hex: token) != nil else {
            throw FaultRuleError("\(name) needs 'token', a device token in hexadecimal")
        }
        return token
    }
}
