import HeraldAuth
import HeraldCore
import HeraldGateway
import HeraldTestTiers
import Testing

@Suite("Fault rules: which request each one fails", .tier(.unit))
struct FaultTableTests {
    private static let token = String(repeating: "0a", count: 32)

    private func head(token: String = FaultTableTests.token, topic: String = "com.example.app", apnsID: String? = nil) -> ProviderRequestHead {
        var head = ProviderRequestHead()
        head.add(name: ":method", value: "POST")
        head.add(name: ":path", value: "/3/device/\(token)")
        head.add(name: "apns-topic", value: topic)
        head.add(name: "apns-push-type", value: "alert")
        if let apnsID { head.add(name: "apns-id", value: apnsID) }
        return head
    }

    @Test("a device-side effect comes with the hit, named by its rule, and counts against the rule's count")
    func deviceEffectHit() throws {
        let table = FaultTable()
        try table.add(FaultRule(id: "slow-ack", effect: FaultEffect(device: DeviceFault(acknowledgementDelayMilliseconds: 500)), count: 1))
        let hit = table.hit(for: head(), nowMilliseconds: 0)
        #expect(hit?.answer == nil)
        #expect(hit?.device == DeviceFault(ruleID: "slow-ack", acknowledgementDelayMilliseconds: 500))
        #expect(table.hit(for: head(), nowMilliseconds: 1) == nil)
        #expect(table.entries.first?.failed == 1)
    }

    @Test("an empty table fails nothing; ids are made in order; a taken id is refused")
    func ids() throws {
        let table = FaultTable()
        #expect(table.isEmpty)
        #expect(table.hit(for: head(), nowMilliseconds: 0) == nil)
        let first = try table.add(FaultRule(effect: .answer(.internalServerError, timestamp: nil)))
        let named = try table.add(FaultRule(id: "mine", effect: .answer(.serviceUnavailable, timestamp: nil)))
        let second = try table.add(FaultRule(effect: .answer(.serviceUnavailable, timestamp: nil)))
        #expect([first.rule.id, named.rule.id, second.rule.id] == ["f1", "mine", "f2"])
        #expect(throws: FaultRuleError("a rule with id 'mine' is already in force")) {
            try table.add(FaultRule(id: "mine", effect: .answer(.internalServerError, timestamp: nil)))
        }
        #expect(!table.isEmpty)
        #expect(table.remove(id: "mine"))
        #expect(!table.remove(id: "mine"))
        #expect(table.entries.map(\.rule.id) == ["f1", "f2"])
        table.removeAll()
        #expect(table.isEmpty)
        #expect(table.hit(for: head(), nowMilliseconds: 0) == nil)
    }

    @Test("the first matching rule decides; a spent rule lets the next one decide")
    func orderAndCount() throws {
        let table = FaultTable()
        try table.add(
            FaultRule(id: "once", match: FaultMatch(token: Self.token.uppercased()), effect: .answer(.serviceUnavailable, timestamp: nil), count: 1)
        )
        try table.add(FaultRule(id: "topic", match: FaultMatch(topic: "com.example.app"), effect: .answer(.internalServerError, timestamp: nil)))
        #expect(table.hit(for: head(), nowMilliseconds: 0)?.ruleID == "once")
        #expect(table.hit(for: head(), nowMilliseconds: 0)?.ruleID == "topic")
        #expect(table.hit(for: head(topic: "com.example.other"), nowMilliseconds: 0) == nil)
        let entries = table.entries
        #expect(entries.map(\.failed) == [1, 1])
        #expect(entries.map(\.remaining) == [0, nil])
    }

    @Test("conditions: token, topic, push type, apns-id without case, header fields; all must hold")
    func conditions() throws {
        let id = "123E4567-E89B-12D3-A456-426614174000"
        let table = FaultTable()
        try table.add(
            FaultRule(
                match: FaultMatch(pushType: "alert", apnsID: id.lowercased(), headers: ["apns-topic": "com.example.app"]),
                effect: .answer(.internalServerError, timestamp: nil)
            )
        )
        #expect(table.hit(for: head(apnsID: id), nowMilliseconds: 0) != nil)
        #expect(table.hit(for: head(apnsID: nil), nowMilliseconds: 0) == nil)
        #expect(table.hit(for: head(topic: "com.example.other", apnsID: id), nowMilliseconds: 0) == nil)
        #expect(table.hit(for: head(token: String(repeating: "0b", count: 32), apnsID: id), nowMilliseconds: 0) != nil)
    }

    @Test("a rule's state: pending before from, in force, spent at its count, expired from until on (as hit decides)")
    func entryState() throws {
        let table = FaultTable()
        let outage = try table.add(FaultScenario.apnsOutage(seconds: 2).rule(id: "outage", nowMilliseconds: 1_000))
        #expect(outage.state(atMilliseconds: 500) == .pending)
        #expect(outage.state(atMilliseconds: 2_999) == .inForce)
        #expect(outage.state(atMilliseconds: 3_000) == .expired)
        #expect(table.hit(for: head(), nowMilliseconds: 3_000) == nil)
        #expect(outage.jsonObject(nowMilliseconds: 3_000)["state"] == .string("expired"))
        #expect(outage.jsonObject(nowMilliseconds: 3_000)["until"] == .int(3_000))

        try table.add(FaultRule(id: "once", effect: .answer(.serviceUnavailable, timestamp: nil), count: 1))
        #expect(table.hit(for: head(), nowMilliseconds: 3_000)?.ruleID == "once")
        #expect(table.entries.last?.state(atMilliseconds: 3_000) == .spent)
        #expect(table.entries.last?.jsonObject(nowMilliseconds: 3_000)["state"] == .string("spent"))
    }

    @Test("from and until bound a rule in time (until excluded)")
    func window() throws {
        let table = FaultTable()
        try table.add(FaultRule(effect: .answer(.serviceUnavailable, timestamp: nil), fromMilliseconds: 1_000, untilMilliseconds: 2_000))
        #expect(table.hit(for: head(), nowMilliseconds: 999) == nil)
        #expect(table.hit(for: head(), nowMilliseconds: 1_000) != nil)
        #expect(table.hit(for: head(), nowMilliseconds: 1_999) != nil)
        #expect(table.hit(for: head(), nowMilliseconds: 2_000) == nil)
    }

    @Test("a delay range draws each request's wait from the rule's seed; a fixed delay is that value")
    func delayDraws() throws {
        func waits(seed: UInt64) throws -> [Int64?] {
            let table = FaultTable()
            try table.add(FaultRule(effect: .delay(milliseconds: 10...20), seed: seed))
            return (0..<50).map { _ in table.hit(for: head(), nowMilliseconds: 0)?.delayMilliseconds }
        }
        let first = try waits(seed: 9)
        #expect(first.allSatisfy { $0.map { (10...20).contains($0) } == true })
        #expect(Set(first.compactMap { $0 }).count > 3)
        #expect(try waits(seed: 9) == first)
        let fixed = FaultTable()
        try fixed.add(FaultRule(effect: .delay(milliseconds: 400...400)))
        let hit = fixed.hit(for: head(), nowMilliseconds: 0)
        #expect(hit?.delayMilliseconds == 400)
        #expect(hit?.answer == nil)
    }

    @Test("a probability with a seed fails the same requests on every run; another seed, others")
    func seeded() throws {
        func sequence(seed: UInt64) throws -> [Bool] {
            let table = FaultTable()
            try table.add(FaultRule(effect: .answer(.serviceUnavailable, timestamp: nil), probability: 0.3, seed: seed))
            return (0..<200).map { _ in table.hit(for: head(), nowMilliseconds: 0) != nil }
        }
        let first = try sequence(seed: 42)
        #expect(try sequence(seed: 42) == first)
        #expect(try sequence(seed: 43) != first)
        let failed = first.filter { $0 }.count
        #expect((30...90).contains(failed), "0.3 of 200 requests, give or take: \(failed)")
    }

    @Test("perSecondAbove fails a token's requests beyond the limit in each second, counted per token")
    func perSecond() throws {
        let table = FaultTable()
        try table.add(FaultRule(match: FaultMatch(perSecondAbove: 2), effect: .answer(.tooManyRequests, timestamp: nil)))
        let other = String(repeating: "0b", count: 32)
        let first = (0..<4).map { _ in table.hit(for: head(), nowMilliseconds: 5_000) != nil }
        #expect(first == [false, false, true, true])
        #expect(table.hit(for: head(token: other), nowMilliseconds: 5_999) == nil)
        #expect(table.hit(for: head(), nowMilliseconds: 6_000) == nil)
    }

    @Test("providerTokenIssuedBefore fails requests signed with an older provider token, not a newer one")
    func providerTokenAge() throws {
        let key = try PrivateSigningKey.generate(teamID: "TEAM123456", keyID: "KEY1234567")
        let table = FaultTable()
        try table.add(FaultRule(match: FaultMatch(providerTokenIssuedBefore: 1_000), effect: .answer(.expiredProviderToken, timestamp: nil)))
        var old = head()
        old.add(name: "authorization", value: "bearer \(key.makeToken(issuedAt: 999))")
        var new = head()
        new.add(name: "authorization", value: "bearer \(key.makeToken(issuedAt: 1_000))")
        #expect(table.hit(for: old, nowMilliseconds: 0)?.answer == FaultAnswer(reason: .expiredProviderToken))
        #expect(table.hit(for: new, nowMilliseconds: 0) == nil)
        #expect(table.hit(for: head(), nowMilliseconds: 0) == nil)
    }
}
