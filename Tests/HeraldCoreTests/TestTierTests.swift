import Foundation
import HeraldTestTiers
import Testing

@Suite("Test tiers: HERALD_TEST_TIERS", .tier(.unit))
struct TestTierTests {
    @Test("unset or empty selects every tier")
    func everyTierByDefault() throws {
        #expect(try TestTier.selected(in: [:]) == Set(TestTier.allCases))
        #expect(try TestTier.selected(in: ["HERALD_TEST_TIERS": " "]) == Set(TestTier.allCases))
    }

    @Test("names are comma-separated, without case, in-process also without its hyphen")
    func names() throws {
        #expect(try TestTier.selected(in: ["HERALD_TEST_TIERS": "unit"]) == [.unit])
        #expect(try TestTier.selected(in: ["HERALD_TEST_TIERS": "Unit, in-process"]) == [.unit, .inProcess])
        #expect(try TestTier.selected(in: ["HERALD_TEST_TIERS": "inprocess,process,browser,"]) == [.inProcess, .process, .browser])
    }

    @Test("a name that is no tier is an error naming the tiers")
    func unknownName() {
        #expect {
            try TestTier.selected(in: ["HERALD_TEST_TIERS": "unti"])
        } throws: { error in
            "\(error)" == "HERALD_TEST_TIERS names 'unti', which is no tier; the tiers are unit, in-process, process, browser"
        }
    }

    @Test("every suite in Tests/ and Examples/ names its tier")
    func everySuiteHasATier() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var suites = 0
        var missing: [String] = []
        for folder in ["Tests", "Examples"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                guard file.pathExtension == "swift", !file.path.contains("/.build/") else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where line.hasPrefix("@Suite") {
                    suites += 1
                    if !line.contains(".tier(.") { missing.append("\(file.lastPathComponent):\(number + 1)") }
                }
            }
        }
        #expect(suites > 100)
        #expect(missing.isEmpty, "suites without a tier: \(missing.joined(separator: ", "))")
    }
}
