/// SplitMix64: a small, fast generator with a 64-bit state; the same seed gives the same sequence on every platform,
/// and every bit of each output is random (`random(in:using:)` reads the high bits). For fault rules' seeded
/// decisions and for tests that must replay a failure.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1) with 53 random bits.
    public mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A number in `0..<bound` (a remainder: slightly uneven for bounds that do not divide 2^64, which tests accept).
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
