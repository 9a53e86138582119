import Foundation
import HeraldCore
import HeraldGateway
import HeraldTestTiers
import Testing

@Suite("Fault rules: reading and refusing them", .tier(.unit))
struct FaultRuleTests {
    private func rule(_ json: String) throws -> FaultRule { try FaultRule(json: Array(json.utf8)) }

    private func refusal(_ json: String) -> String? {
        do {
            _ = try rule(json)
            return nil
        } catch let error as FaultRuleError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("the documented examples read as written")
    func examples() throws {
        let token = String(repeating: "ab", count: 32)
        let outage = try rule(#"{"match": {"token": "\#(token.uppercased())"}, "status": 503, "reason": "ServiceUnavailable", "count": 1}"#)
        #expect(outage.match.token == token)
        #expect(outage.effect == .answer(.serviceUnavailable, timestamp: nil))
        #expect(outage.count == 1)
        #expect(outage.probability == 1)
        let gone = try rule(#"{"id": "gone", "match": {"topic": "com.example.app"}, "status": 410, "timestamp": 1700000000000, "seed": 7}"#)
        #expect(gone.id == "gone")
        #expect(gone.match.topic == "com.example.app")
        #expect(gone.effect == .answer(.unregistered, timestamp: 1_700_000_000_000))
        #expect(gone.seed == 7)
        let windowed = try rule(#"{"reason": "TooManyRequests", "probability": 0.25, "from": "2026-11-25T12:00:00Z", "until": 1795611600000}"#)
        #expect(windowed.effect == .answer(.tooManyRequests, timestamp: nil))
        #expect(windowed.probability == 0.25)
        #expect(windowed.fromMilliseconds == 1_795_608_000_000)
        #expect(windowed.untilMilliseconds == 1_795_611_600_000)
    }

    @Test("a status alone stands for its one obvious reason; several reasons must be named")
    func statusAlone() throws {
        #expect(try rule(#"{"status": 500}"#).effect == .answer(.internalServerError, timestamp: nil))
        #expect(try rule(#"{"status": 429}"#).effect == .answer(.tooManyRequests, timestamp: nil))
        #expect(refusal(#"{"status": 403}"#)?.hasPrefix("'status' 403 has several reasons; name one in 'reason' (BadCertificate") == true)
        #expect(refusal(#"{"status": 418}"#) == "'status' 418 is not in Apple's table (400, 403, 404, 405, 410, 413, 429, 500, 503)")
    }

    @Test("a reason that is not Apple's, or not Apple's with that status, is refused")
    func reasons() {
        #expect(refusal(#"{"status": 503, "reason": "Unregistered"}"#) == "'reason' Unregistered is Apple's answer with status 410, not 503")
        #expect(refusal(#"{"reason": "Teapot"}"#) == "'reason' Teapot is not in Apple's table (docs/provider-api.md)")
        #expect(refusal(#"{"status": 503, "reason": "ServiceUnavailable", "timestamp": 5}"#) == "'timestamp' goes with a 410 answer only")
        #expect(
            refusal(#"{"match": {}}"#)
                == "a rule needs an effect: 'status' and 'reason' (a row of Apple's table), 'delayMs', 'goaway', 'reset', 'close', 'stallMs', 'deviceOffline', 'ackDelayMs' or 'extensionTimeout'"
        )
    }

    @Test("unknown fields, effects of later versions and malformed values are refused with the field's name")
    func malformed() {
        #expect(
            refusal(#"{"status": 500, "colour": "red"}"#)?.hasPrefix(
                "unknown field 'colour'; a rule has ackDelayMs, close, count, delay, delayMs, deviceOffline, extensionTimeout, forMs, from, goaway, id,"
            ) == true
        )
        #expect(refusal(#"{"stall": 5}"#)?.hasPrefix("'stall' is not an effect this version of Herald has") == true)
        #expect(refusal(#"{"status": 500, "match": {"device": "x"}}"#)?.hasPrefix("unknown field 'match.device'") == true)
        #expect(refusal(#"{"status": 500, "match": {"token": "xyz"}}"#) == "'match.token' must be a device token in hexadecimal")
        #expect(
            refusal(#"{"status": 500, "match": {"header": {"x-custom": "1"}}}"#)?.hasPrefix("'match.header' names 'x-custom'; it can name") == true
        )
        #expect(refusal(#"{"status": 500, "count": 0}"#) == "'count' must be 1 or more")
        #expect(refusal(#"{"status": 500, "count": true}"#) == "'count' must be an integer")
        #expect(refusal(#"{"status": 500, "count": 1.5}"#) == "'count' must be an integer")
        #expect(refusal(#"{"status": 500, "probability": 0}"#) == "'probability' must be more than 0 and at most 1")
        // A window that ends before it starts is taken (a JSON schema cannot compare two members) and is never in force.
        let never = try? rule(#"{"status": 500, "from": 10, "until": 10}"#)
        #expect(never?.fromMilliseconds == 10 && never?.untilMilliseconds == 10)
        #expect(refusal(#"{"status": 500, "count": 9223372036854775808}"#) == "'count' must be an integer")
        #expect(refusal(#"{"status": 500, "count": 1e300}"#) == "'count' must be an integer")
        #expect(
            refusal(#"{"status": 500, "from": "yesterday"}"#)?.hasPrefix("'from' must be milliseconds since the epoch or an ISO 8601 date") == true
        )
        #expect(refusal(#"{"status": 500, "id": "has space"}"#) == "'id' must be 1 to 64 letters, digits, '.', '_' or '-'")
        #expect(refusal(#"[1]"#) == "a rule must be a JSON object")
        #expect(refusal(#"{"status": "#) == "a rule must be a JSON object: the text is not JSON")
    }

    @Test("delayMs alone, a delay range, or a delayed error; bounds and mixtures are checked")
    func delays() throws {
        #expect(try rule(#"{"match": {"topic": "com.example.app"}, "delayMs": 400}"#).effect == .delay(milliseconds: 400...400))
        #expect(try rule(#"{"delay": {"minMs": 100, "maxMs": 250}}"#).effect == .delay(milliseconds: 100...250))
        let slowError = try rule(#"{"status": 500, "delayMs": 50}"#).effect
        #expect(slowError == FaultEffect(answer: FaultAnswer(reason: .internalServerError), delayMilliseconds: 50...50))
        #expect(refusal(#"{"delayMs": -1}"#) == "'delayMs' must be 0 to at most 600000 (10 minutes)")
        #expect(refusal(#"{"delayMs": 600001}"#) == "'delayMs' must be 0 to at most 600000 (10 minutes)")
        #expect(refusal(#"{"delayMs": 5, "delay": {"minMs": 1, "maxMs": 2}}"#) == "give 'delayMs' or 'delay', not both")
        #expect(try rule(#"{"delay": {"minMs": 250, "maxMs": 100}}"#).effect == .delay(milliseconds: 100...250))
        #expect(refusal(#"{"delay": {"minMs": 9, "maxMs": -2}}"#) == "'delay' must have minMs and maxMs from 0 to at most 600000 (10 minutes)")
        #expect(refusal(#"{"delay": {"minMs": 1}}"#) == "'delay' must be {\"minMs\": …, \"maxMs\": …} with two integers")
        #expect(refusal(#"{"delayMs": 5, "timestamp": 1}"#) == "'timestamp' goes with a 410 answer only")
    }

    @Test("connection effects: goaway after an answer, reset or close instead of one, stallMs; one at a time")
    func connectionEffects() throws {
        #expect(try rule(#"{"goaway": "Shutdown"}"#).effect == FaultEffect(connection: .goAway(reason: "Shutdown")))
        let outage = try rule(#"{"status": 503, "goaway": "Shutdown"}"#).effect
        #expect(outage == FaultEffect(answer: FaultAnswer(reason: .serviceUnavailable), connection: .goAway(reason: "Shutdown")))
        #expect(try rule(#"{"reset": true, "delayMs": 100}"#).effect == FaultEffect(delayMilliseconds: 100...100, connection: .reset))
        #expect(try rule(#"{"close": true}"#).effect == FaultEffect(connection: .close))
        #expect(try rule(#"{"stallMs": 250}"#).effect == FaultEffect(connection: .stall(milliseconds: 250)))
        #expect(refusal(#"{"reset": true, "status": 500}"#) == "'reset' and 'close' give no answer: leave out 'status' and 'reason'")
        #expect(refusal(#"{"reset": true, "close": true}"#) == "give one of 'goaway', 'reset', 'close' and 'stallMs'")
        #expect(refusal(#"{"reset": false}"#) == "'reset' must be true")
        #expect(refusal(#"{"stallMs": 0}"#) == "'stallMs' must be 1 to 600000 (10 minutes)")
        #expect(refusal(#"{"goaway": "not a reason"}"#) == "'goaway' must be a reason: 1 to 64 letters, digits, '.', '_' or '-'")
    }

    @Test("device-side effects: deviceOffline with forMs, ackDelayMs, extensionTimeout, alone, together and with a delay")
    func deviceEffects() throws {
        let offline = try rule(#"{"match": {"topic": "com.example.app"}, "deviceOffline": true, "forMs": 1500, "count": 1}"#)
        #expect(offline.effect == FaultEffect(device: DeviceFault(offlineMilliseconds: 1500)))
        #expect(offline.count == 1)
        #expect(try rule(#"{"ackDelayMs": 600000}"#).effect == FaultEffect(device: DeviceFault(acknowledgementDelayMilliseconds: 600_000)))
        #expect(try rule(#"{"extensionTimeout": true}"#).effect == FaultEffect(device: DeviceFault(extensionTimeout: true)))
        let all = try rule(
            #"{"deviceOffline": true, "forMs": 1, "ackDelayMs": 2, "extensionTimeout": true, "delayMs": 3, "probability": 0.5, "seed": 4}"#
        )
        #expect(
            all.effect
                == FaultEffect(
                    delayMilliseconds: 3...3,
                    device: DeviceFault(offlineMilliseconds: 1, acknowledgementDelayMilliseconds: 2, extensionTimeout: true)
                )
        )
    }

    @Test("device-side effects refuse what makes no sense with them, and bad values")
    func deviceEffectRefusals() {
        #expect(refusal(#"{"deviceOffline": true}"#) == "'deviceOffline' needs 'forMs', how long the device stays offline (1 to 600000 (10 minutes))")
        #expect(refusal(#"{"forMs": 100}"#) == "'forMs' goes with \"deviceOffline\": true")
        #expect(refusal(#"{"forMs": 100, "ackDelayMs": 5}"#) == "'forMs' goes with \"deviceOffline\": true")
        #expect(refusal(#"{"deviceOffline": false, "forMs": 100}"#) == "'deviceOffline' must be true")
        #expect(refusal(#"{"deviceOffline": true, "forMs": 0}"#) == "'forMs' must be 1 to 600000 (10 minutes)")
        #expect(refusal(#"{"deviceOffline": true, "forMs": 600001}"#) == "'forMs' must be 1 to 600000 (10 minutes)")
        #expect(refusal(#"{"deviceOffline": 1, "forMs": 5}"#) == "'deviceOffline' must be true")
        #expect(refusal(#"{"ackDelayMs": 0}"#) == "'ackDelayMs' must be 1 to 600000 (10 minutes)")
        #expect(refusal(#"{"ackDelayMs": "5"}"#) == "'ackDelayMs' must be an integer")
        #expect(refusal(#"{"extensionTimeout": false}"#) == "'extensionTimeout' must be true")
        let answered = "a device-side effect acts on an accepted notification: leave out 'status' and 'reason'"
        #expect(refusal(#"{"ackDelayMs": 5, "status": 503}"#) == answered)
        #expect(refusal(#"{"extensionTimeout": true, "reason": "ServiceUnavailable"}"#) == answered)
        #expect(refusal(#"{"ackDelayMs": 5, "timestamp": 1}"#) == "'timestamp' goes with a 410 answer only")
        let connection = "a device-side effect combines with 'delayMs' or 'delay' only, not with 'goaway', 'reset', 'close' or 'stallMs'"
        #expect(refusal(#"{"deviceOffline": true, "forMs": 5, "reset": true}"#) == connection)
        #expect(refusal(#"{"extensionTimeout": true, "close": true}"#) == connection)
        #expect(refusal(#"{"ackDelayMs": 5, "goaway": "Shutdown"}"#) == connection)
        #expect(refusal(#"{"ackDelayMs": 5, "stallMs": 5}"#) == connection)
    }

    @Test("a file holds an array of rules or {\"rules\": [...]}; an error names the rule's place")
    func lists() throws {
        let array = try FaultRule.list(json: Array(#"[{"status": 500}, {"status": 503, "count": 2}]"#.utf8), nowMilliseconds: 0)
        #expect(array.map(\.effect) == [.answer(.internalServerError, timestamp: nil), .answer(.serviceUnavailable, timestamp: nil)])
        let wrapped = try FaultRule.list(json: Array(#"{"rules": [{"status": 429}]}"#.utf8), nowMilliseconds: 0)
        #expect(wrapped.count == 1)
        #expect(throws: FaultRuleError("rule 2: 'count' must be 1 or more")) {
            try FaultRule.list(json: Array(#"[{"status": 500}, {"status": 500, "count": -1}]"#.utf8), nowMilliseconds: 0)
        }
        #expect(throws: FaultRuleError("the rules must be a JSON array of rules, or an object with \"rules\"")) {
            try FaultRule.list(json: Array(#"{"status": 500}"#.utf8), nowMilliseconds: 0)
        }
    }

    @Test("scenarios become the rules they stand for, from the time they are added")
    func scenarios() throws {
        let now: Int64 = 1_795_608_000_123
        func scenario(_ json: String) throws -> FaultRule { try FaultRule.parse(json: Array(json.utf8), nowMilliseconds: now) }
        let outage = try scenario(#"{"scenario": "apns-outage", "seconds": 30, "id": "outage"}"#)
        #expect(outage.id == "outage")
        #expect(outage.effect == FaultEffect(answer: FaultAnswer(reason: .serviceUnavailable), connection: .goAway(reason: "Shutdown")))
        #expect(outage.fromMilliseconds == now && outage.untilMilliseconds == now + 30_000)
        let expired = try scenario(#"{"scenario": "token-expired"}"#)
        #expect(expired.match.providerTokenIssuedBefore == now / 1000)
        #expect(expired.effect == .answer(.expiredProviderToken, timestamp: nil))
        let token = String(repeating: "c3", count: 32)
        let uninstalled = try scenario(#"{"scenario": "app-uninstalled", "token": "\#(token)", "at": 1795600000000}"#)
        #expect(uninstalled.match.token == token)
        #expect(uninstalled.effect == .answer(.unregistered, timestamp: 1_795_600_000_000))
        #expect(uninstalled.fromMilliseconds == 1_795_600_000_000)
        #expect(try scenario(#"{"scenario": "app-uninstalled", "token": "\#(token)"}"#).effect == .answer(.unregistered, timestamp: now))
        let throttled = try scenario(#"{"scenario": "throttled-device", "token": "\#(token)", "perSecond": 5}"#)
        #expect(throttled.match.perSecondAbove == 5)
        #expect(throttled.effect == .answer(.tooManyRequests, timestamp: nil))
        // A plain rule reads the same through parse.
        #expect(try scenario(#"{"status": 500}"#).effect == .answer(.internalServerError, timestamp: nil))
        // A file may mix rules and scenarios.
        let listed = try FaultRule.list(json: Array(#"[{"scenario": "token-expired"}, {"status": 500}]"#.utf8), nowMilliseconds: now)
        #expect(listed.map(\.effect) == [.answer(.expiredProviderToken, timestamp: nil), .answer(.internalServerError, timestamp: nil)])
    }

    @Test("a scenario with a missing or foreign field is refused, naming what it takes")
    func badScenarios() {
        func refusal(_ json: String) -> String? {
            do {
                _ = try FaultRule.parse(json: Array(json.utf8), nowMilliseconds: 0)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal(#"{"scenario": "apns-outage"}"#) == "apns-outage needs 'seconds', 1 to 86400")
        #expect(refusal(#"{"scenario": "apns-outage", "seconds": 5, "status": 500}"#) == "apns-outage takes seconds, not 'status'")
        #expect(refusal(#"{"scenario": "token-expired", "seconds": 5}"#) == "token-expired takes no field but 'id', not 'seconds'")
        #expect(refusal(#"{"scenario": "app-uninstalled"}"#) == "app-uninstalled needs 'token', a device token in hexadecimal")
        #expect(refusal(#"{"scenario": "throttled-device", "token": "aa"}"#) == "throttled-device needs 'perSecond', 1 or more")
        #expect(refusal(#"{"scenario": "apns-outage", "seconds": true}"#) == "apns-outage needs 'seconds', 1 to 86400")
        #expect(
            refusal(#"{"scenario": "app-uninstalled", "token": "\#(String(repeating: "ab", count: 32))", "at": "noon"}"#)
                == "'at' must be milliseconds since the epoch"
        )
        #expect(refusal(#"{"scenario": "meteor"}"#) == "'scenario' meteor is none of apns-outage, token-expired, app-uninstalled, throttled-device")
    }
}

@Suite("Fault rules: written back as JSON", .tier(.unit))
struct FaultRuleEncodingTests {
    @Test("a rule's JSON reads back as the same rule")
    func roundTrip() throws {
        let token = String(repeating: "ab", count: 32)
        for text in [
            #"{"id": "a", "match": {"token": "\#(token)", "topic": "t", "pushType": "alert", "header": {"apns-priority": "5"}}, "status": 503, "count": 2, "seed": 9}"#,
            #"{"id": "b", "status": 410, "timestamp": 1700000000000, "from": 10, "until": 20, "probability": 0.5, "seed": 1}"#,
            #"{"id": "c", "delay": {"minMs": 5, "maxMs": 9}, "goaway": "Shutdown", "seed": 2}"#,
            #"{"id": "d", "delayMs": 7, "reset": true, "seed": 3}"#,
            #"{"id": "e", "stallMs": 70, "seed": 4}"#,
            #"{"id": "f", "match": {"providerTokenIssuedBefore": 1700000000, "perSecondAbove": 3}, "status": 429, "seed": 5}"#,
            #"{"id": "g", "match": {"topic": "t"}, "deviceOffline": true, "forMs": 1500, "count": 1, "seed": 6}"#,
            #"{"id": "h", "ackDelayMs": 250, "extensionTimeout": true, "delayMs": 10, "seed": 7}"#,
        ] {
            let rule = try FaultRule(json: Array(text.utf8))
            let written = rule.jsonObject.jsonBytes
            #expect(try FaultRule(json: written) == rule, "\(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test("an entry adds applied and remaining")
    func entry() throws {
        let table = FaultTable()
        try table.add(FaultRule(json: Array(#"{"status": 500, "count": 3}"#.utf8)))
        try table.add(FaultRule(json: Array(#"{"status": 503}"#.utf8)))
        var head = ProviderRequestHead()
        head.add(name: ":path", value: "/3/device/00")
        _ = table.hit(for: head, nowMilliseconds: 0)
        let objects = table.entries.map(\.jsonObject)
        #expect(objects[0]["applied"] == .int(1))
        #expect(objects[0]["remaining"] == .int(2))
        #expect(objects[1]["applied"] == .int(0))
        #expect(objects[1]["remaining"] == .null)
        #expect(objects[0]["id"] == .string("f1"))
    }
}
