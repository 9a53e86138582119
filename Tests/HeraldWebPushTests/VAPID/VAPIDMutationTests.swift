import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// Seeded random mutations of a valid `Authorization` value (the fuzz target FuzzVAPID does this at length; this runs
/// in every `swift test`, in well under a second).
@Suite("VAPID: mutated headers", .tier(.unit))
struct VAPIDMutationTests {
    @Test("every mutation is verified or refused with 403 BadJwtToken and a one-line explanation")
    func mutations() {
        var random = SplitMix64(seed: 0x7A91D)
        let valid = Array(VAPIDFixtures.authorization().utf8)
        let alphabet = Array("vapidtk=,. \t\"-_+/=ABCxyz019<>@:{}\n".utf8) + [0x00, 0xFF, 0xC3]
        var verified = 0
        var rules = Set<String>()
        for _ in 0..<2000 {
            var bytes = valid
            for _ in 0..<(1 + random.next(below: 4)) {
                let index = random.next(below: bytes.count)
                switch random.next(below: 4) {
                case 0: bytes[index] = alphabet[random.next(below: alphabet.count)]
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet[random.next(below: alphabet.count)], at: index)
                default: bytes.removeSubrange(index..<min(bytes.count, index + random.next(below: 40)))
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            switch VAPIDFixtures.verify(String(decoding: bytes, as: UTF8.self)) {
            case .success(let identity):
                verified += 1
                #expect(identity.key == VAPIDFixtures.key)
            case .failure(let refusal):
                rules.insert(refusal.rule.name)
                #expect(refusal.status == 403)
                #expect(refusal.reason == .badJwtToken)
                #expect(!refusal.explanation.isEmpty && !refusal.explanation.contains("\n"))
            }
        }
        // Mutations reach past the parser: the signature and several header and key rules answer.
        #expect(rules.isSuperset(of: ["vapid-malformed-header", "vapid-bad-key", "vapid-malformed-token", "vapid-bad-signature"]))
        #expect(verified < 2000)
    }
}
