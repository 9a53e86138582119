import HeraldTestTiers
import Testing

@testable import HeraldCore

@Suite("Nearest-rank percentiles", .tier(.unit))
struct NearestRankTests {
    @Test("no samples: no percentile")
    func empty() {
        #expect(NearestRank.percentile(0.5, ofSorted: [Int]()) == nil)
        #expect(NearestRank.percentile(1, ofSorted: [Double]()) == nil)
    }

    @Test("one sample is every percentile", arguments: [0, 0.01, 0.5, 0.99, 1])
    func oneSample(_ fraction: Double) {
        #expect(NearestRank.percentile(fraction, ofSorted: [7]) == 7)
    }

    @Test("1…100: p50 is 50, p90 90, p99 99, p100 100, p0 and p1 the smallest")
    func hundred() {
        let samples = Array(1...100)
        #expect(NearestRank.percentile(0.5, ofSorted: samples) == 50)
        #expect(NearestRank.percentile(0.9, ofSorted: samples) == 90)
        #expect(NearestRank.percentile(0.99, ofSorted: samples) == 99)
        #expect(NearestRank.percentile(1, ofSorted: samples) == 100)
        #expect(NearestRank.percentile(0.01, ofSorted: samples) == 1)
        #expect(NearestRank.percentile(0, ofSorted: samples) == 1)
    }

    @Test("the rank rounds up: p50 of four samples is the second, p99 of ten the tenth, p51 of two the second")
    func roundsUp() {
        #expect(NearestRank.percentile(0.5, ofSorted: [10, 20, 30, 40]) == 20)
        #expect(NearestRank.percentile(0.99, ofSorted: Array(1...10)) == 10)
        #expect(NearestRank.percentile(0.51, ofSorted: [1, 2]) == 2)
        #expect(NearestRank.percentile(0.5, ofSorted: [1, 2]) == 1)
    }

    @Test("fractions outside 0…1 (or not a number) give the smallest or the largest sample, never a crash")
    func outOfRange() {
        let samples = [3, 5, 8]
        #expect(NearestRank.percentile(-1, ofSorted: samples) == 3)
        #expect(NearestRank.percentile(2, ofSorted: samples) == 8)
        #expect(NearestRank.percentile(.infinity, ofSorted: samples) == 8)
        #expect(NearestRank.percentile(.nan, ofSorted: samples) == 3)
    }

    @Test("works on a slice whose indices do not start at zero")
    func slice() {
        let samples = Array(0...10)[6...]
        #expect(NearestRank.percentile(0.5, ofSorted: samples) == 8)
        #expect(NearestRank.percentile(1, ofSorted: samples) == 10)
    }
}
