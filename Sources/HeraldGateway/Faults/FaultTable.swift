import HeraldCore
import NIOConcurrencyHelpers
import Synchronization

/// The fault rules in force (docs/faults.md), shared by every connection of a gateway and whoever sets them.
///
/// Rules are tried in the order they were added; the first that matches a request and is not spent decides it.
/// With no rule, the gateway's cost is one atomic load per request.
public final class FaultTable: Sendable {
    /// A rule and what it has done so far.
    public struct Entry: Sendable, Hashable {
        /// The rule, with its ``FaultRule/id``.
        public var rule: FaultRule
        /// Requests it failed.
        public var failed: Int
        /// Failures left before it is spent; `nil`: no limit.
        public var remaining: Int? { rule.count.map { max(0, $0 - failed) } }
    }

    /// What a rule decided for one request.
    public struct Hit: Sendable, Hashable {
        /// The rule's id.
        public var ruleID: String
        /// The answer instead of the real one, if any.
        public var answer: FaultAnswer?
        /// How long to wait before handling the request, drawn from the rule's range; `nil`: no wait.
        public var delayMilliseconds: Int64?
        /// What happens to the connection.
        public var connection: FaultConnectionEffect?
        /// What happens on the device side once the notification is accepted, with the rule's id.
        public var device: DeviceFault?
    }

    /// A rule in force with what it keeps between requests.
    private struct Slot {
        var entry: Entry
        /// The rule's random sequence (from its seed): draws for `probability` and delay ranges.
        var generator: SplitMix64
        /// For a ``FaultMatch/perSecondAbove`` condition: the second being counted, and each token's requests in it.
        var rate: (second: Int64, counts: [String: Int])?
    }

    private struct State {
        var slots: [Slot] = []
        var nextNumber = 1
    }

    /// The device tokens a rate condition counts in one second, at most (memory stays bounded under any load).
    public static let maximumCountedTokens = 100_000

    private let state = NIOLockedValueBox(State())
    private let hasRules = Atomic<Bool>(false)

    /// The requests the rules applied to, newest last: the `fault` events of traces.
    public let log: FaultLog

    /// An empty table recording what its rules do in `log`.
    public init(log: FaultLog = FaultLog()) {
        self.log = log
    }

    /// Adds a rule after the others; returns its entry, with its id (made when it had none).
    ///
    /// - Throws: ``FaultRuleError`` when a rule with the same id is in the table.
    @discardableResult
    public func add(_ rule: FaultRule) throws(FaultRuleError) -> Entry {
        let result: Result<Entry, FaultRuleError> = state.withLockedValue { state in
            var rule = rule
            let ids = Set(state.slots.compactMap(\.entry.rule.id))
            if let id = rule.id {
                guard !ids.contains(id) else { return .failure(FaultRuleError("a rule with id '\(id)' is already in force")) }
            } else {
                repeat {
                    rule.id = "f\(state.nextNumber)"
                    state.nextNumber += 1
                } while ids.contains(rule.id!)
            }
            let entry = Entry(rule: rule, failed: 0)
            state.slots.append(Slot(entry: entry, generator: SplitMix64(seed: rule.seed)))
            hasRules.store(true, ordering: .releasing)
            return .success(entry)
        }
        return try result.get()
    }

    /// Removes one rule; false when there is none with that id.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLockedValue { state in
            guard let index = state.slots.firstIndex(where: { $0.entry.rule.id == id }) else { return false }
            state.slots.remove(at: index)
            hasRules.store(!state.slots.isEmpty, ordering: .releasing)
            return true
        }
    }

    /// Removes every rule; returns how many there were.
    @discardableResult
    public func removeAll() -> Int {
        state.withLockedValue { state in
            let count = state.slots.count
            state.slots = []
            hasRules.store(false, ordering: .releasing)
            return count
        }
    }

    /// Whether no rule is in force: one atomic load, for the gateway's hot path.
    public var isEmpty: Bool { !hasRules.load(ordering: .acquiring) }

    /// The rules in force, in order, with what each has done (spent rules included).
    public var entries: [Entry] {
        state.withLockedValue { $0.slots.map(\.entry) }
    }

    /// The rule that applies to this request, if any: counts it against the rule's `count` and draws its probability.
    ///
    /// A rule outside its `from`/`until` window or already spent is passed over; a rule whose draw says "not this
    /// time" lets the request through (the next rules are not tried), so that a seed gives the same sequence.
    public func hit(for head: ProviderRequestHead, nowMilliseconds: Int64) -> Hit? {
        guard hasRules.load(ordering: .acquiring) else { return nil }
        return state.withLockedValue { state -> Hit? in
            for index in state.slots.indices {
                let rule = state.slots[index].entry.rule
                if state.slots[index].entry.remaining == 0 { continue }
                if let from = rule.fromMilliseconds, nowMilliseconds < from { continue }
                if let until = rule.untilMilliseconds, nowMilliseconds >= until { continue }
                guard rule.match.matches(head) else { continue }
                if let limit = rule.match.perSecondAbove {
                    let token: String
                    switch head.pathTarget {
                    case .device(let sent), .webPush(let sent): token = sent
                    default: continue
                    }
                    guard Self.count(token.lowercased(), in: &state.slots[index].rate, nowMilliseconds: nowMilliseconds) > limit else {
                        continue
                    }
                }
                if rule.probability < 1, state.slots[index].generator.nextUnitInterval() >= rule.probability { return nil }
                state.slots[index].entry.failed += 1
                let delay = rule.effect.delayMilliseconds.map { range in
                    range.lowerBound + Int64(state.slots[index].generator.next() % UInt64(range.upperBound - range.lowerBound + 1))
                }
                let device = rule.effect.device.map { effect in
                    var fault = effect
                    fault.ruleID = rule.id ?? ""
                    return fault
                }
                return Hit(
                    ruleID: rule.id ?? "",
                    answer: rule.effect.answer,
                    delayMilliseconds: delay,
                    connection: rule.effect.connection,
                    device: device
                )
            }
            return nil
        }
    }

    /// Counts a token's request in the current second (whether or not it is then failed: the rate is the device's);
    /// returns its count so far, 0 for a token past ``maximumCountedTokens`` (not counted, so not failed).
    private static func count(_ token: String, in rate: inout (second: Int64, counts: [String: Int])?, nowMilliseconds: Int64) -> Int {
        let second = nowMilliseconds / 1000
        var window = rate.flatMap { $0.second == second ? $0 : nil } ?? (second: second, counts: [:])
        defer { rate = window }
        guard window.counts[token] != nil || window.counts.count < maximumCountedTokens else { return 0 }
        window.counts[token, default: 0] += 1
        return window.counts[token]!
    }
}
