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
    }

    private struct State {
        var entries: [Entry] = []
        /// Each rule's random sequence, by id (``SplitMix64`` from the rule's seed).
        var generators: [String: SplitMix64] = [:]
        var nextNumber = 1
        /// For rules with ``FaultMatch/perSecondAbove``: the second being counted, and each token's requests in it.
        var rates: [String: (second: Int64, counts: [String: Int])] = [:]
    }

    /// The device tokens a rate condition counts in one second, at most (memory stays bounded under any load).
    public static let maximumCountedTokens = 100_000

    private let state = NIOLockedValueBox(State())
    private let hasRules = Atomic<Bool>(false)

    /// An empty table.
    public init() {}

    /// Adds a rule after the others; returns it with its id (made when it had none).
    ///
    /// - Throws: ``FaultRuleError`` when a rule with the same id is in the table.
    @discardableResult
    public func add(_ rule: FaultRule) throws(FaultRuleError) -> FaultRule {
        let result: Result<FaultRule, FaultRuleError> = state.withLockedValue { state in
            var rule = rule
            if let id = rule.id {
                guard !state.entries.contains(where: { $0.rule.id == id }) else {
                    return .failure(FaultRuleError("a rule with id '\(id)' is already in force"))
                }
            } else {
                var id: String
                repeat {
                    id = "f\(state.nextNumber)"
                    state.nextNumber += 1
                } while state.entries.contains(where: { $0.rule.id == id })
                rule.id = id
            }
            state.entries.append(Entry(rule: rule, failed: 0))
            state.generators[rule.id!] = SplitMix64(seed: rule.seed)
            return .success(rule)
        }
        let added = try result.get()
        hasRules.store(true, ordering: .releasing)
        return added
    }

    /// Removes one rule; false when there is none with that id.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLockedValue { state in
            guard let index = state.entries.firstIndex(where: { $0.rule.id == id }) else { return false }
            state.entries.remove(at: index)
            state.generators[id] = nil
            state.rates[id] = nil
            hasRules.store(!state.entries.isEmpty, ordering: .releasing)
            return true
        }
    }

    /// Removes every rule; returns how many there were.
    @discardableResult
    public func removeAll() -> Int {
        state.withLockedValue { state in
            let count = state.entries.count
            state.entries = []
            state.generators = [:]
            state.rates = [:]
            hasRules.store(false, ordering: .releasing)
            return count
        }
    }

    /// Whether no rule is in force: one atomic load, for the gateway's hot path.
    public var isEmpty: Bool { !hasRules.load(ordering: .acquiring) }

    /// The rules in force, in order, with what each has done (spent rules included).
    public var entries: [Entry] {
        state.withLockedValue { $0.entries }
    }

    /// The rule that applies to this request, if any: counts it against the rule's `count` and draws its probability.
    ///
    /// A rule outside its `from`/`until` window or already spent is passed over; a rule whose draw says "not this
    /// time" lets the request through (the next rules are not tried), so that a seed gives the same sequence.
    public func hit(for head: ProviderRequestHead, nowMilliseconds: Int64) -> Hit? {
        guard hasRules.load(ordering: .acquiring) else { return nil }
        return state.withLockedValue { state -> Hit? in
            for index in state.entries.indices {
                let entry = state.entries[index]
                let rule = entry.rule
                if let remaining = entry.remaining, remaining == 0 { continue }
                if let from = rule.fromMilliseconds, nowMilliseconds < from { continue }
                if let until = rule.untilMilliseconds, nowMilliseconds >= until { continue }
                guard rule.match.matches(head) else { continue }
                let id = rule.id ?? ""
                if let limit = rule.match.perSecondAbove {
                    // Counted whether or not the request is failed: the rate is the device's, not the failures'.
                    guard case .device(let token) = head.pathTarget else { continue }
                    let second = nowMilliseconds / 1000
                    var window = state.rates[id] ?? (second: second, counts: [:])
                    if window.second != second { window = (second: second, counts: [:]) }
                    let key = token.lowercased()
                    // Bounded: past this many tokens in one second, new ones are not counted (and so not failed).
                    guard window.counts[key] != nil || window.counts.count < Self.maximumCountedTokens else { continue }
                    let seen = (window.counts[key] ?? 0) + 1
                    window.counts[key] = seen
                    state.rates[id] = window
                    guard seen > limit else { continue }
                }
                var generator = state.generators[id] ?? SplitMix64(seed: rule.seed)
                defer { state.generators[id] = generator }
                if rule.probability < 1, generator.nextUnitInterval() >= rule.probability { return nil }
                state.entries[index].failed += 1
                let delay = rule.effect.delayMilliseconds.map { range in
                    range.lowerBound + Int64(generator.next() % UInt64(range.upperBound - range.lowerBound + 1))
                }
                return Hit(ruleID: id, answer: rule.effect.answer, delayMilliseconds: delay, connection: rule.effect.connection)
            }
            return nil
        }
    }
}

/// A small, fast generator with a 64-bit state: the same seed gives the same sequence on every platform.
struct SplitMix64: Sendable, Hashable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1) with 53 random bits.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
