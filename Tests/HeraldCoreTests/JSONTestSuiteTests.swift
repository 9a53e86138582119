import Foundation
import HeraldTestTiers
import Testing

@testable import HeraldCore

/// JSONTestSuite-style cases (after Nicolas Seriot's suite; written for Herald, not copied) for the payload parser.
///
/// Each file in `JSONTestSuite/` is one document: `y_` must parse, `n_` must be refused, `i_` is left to the
/// implementation by RFC 8259 and Herald's choice is the table below, with its reason.
@Suite("JSON parser: JSONTestSuite-style cases", .tier(.unit))
struct JSONTestSuiteTests {
    enum Outcome: Sendable {
        case accepted
        case refused
    }

    /// Herald's answer to each implementation-defined case, and why.
    static let implementationDefined: [String: (outcome: Outcome, reason: String)] = [
        // Numbers are integers when written as integers that fit Int, doubles otherwise (RFC 8259 §6 lets an
        // implementation set range and precision).
        "i_number_huge_exponent": (.refused, "out of Double's range: refused rather than read as infinity"),
        "i_number_negative_huge_exponent": (.refused, "out of Double's range: refused rather than read as -infinity"),
        "i_number_tiny_exponent": (.accepted, "underflows to 0, as JavaScript (and so most providers) would read it"),
        "i_number_very_long_integer": (.accepted, "too large for Int: rounded to the nearest double"),
        "i_number_very_long_fraction": (.accepted, "rounded to the nearest double"),
        "i_number_above_2_to_53": (.accepted, "an integer that fits Int, read exactly"),
        // Strings must be Unicode scalars (RFC 8259 §8.2 allows refusing unpaired surrogates): a payload is delivered as
        // text to a device, and Swift strings cannot hold a lone surrogate.
        "i_string_lone_high_surrogate": (.refused, "unpaired surrogate"),
        "i_string_lone_low_surrogate": (.refused, "unpaired surrogate"),
        "i_string_high_surrogate_then_non_surrogate": (.refused, "unpaired surrogate"),
        "i_string_high_surrogate_then_text": (.refused, "unpaired surrogate"),
        "i_string_reversed_surrogates": (.refused, "unpaired surrogate"),
        "i_string_two_high_surrogates": (.refused, "unpaired surrogate"),
        // RFC 8259 §8.1: JSON exchanged between systems is UTF-8; APNs documents payloads as UTF-8 JSON.
        "i_string_invalid_utf8_byte": (.refused, "invalid UTF-8"),
        "i_string_lone_continuation_byte": (.refused, "invalid UTF-8"),
        "i_string_overlong_encoding": (.refused, "invalid UTF-8 (overlong)"),
        "i_string_truncated_utf8": (.refused, "invalid UTF-8 (truncated sequence)"),
        "i_string_utf8_encoded_surrogate": (.refused, "invalid UTF-8 (a surrogate is not a scalar)"),
        "i_string_above_max_code_point": (.refused, "invalid UTF-8 (above U+10FFFF)"),
        "i_string_iso_latin_1": (.refused, "invalid UTF-8 (Latin-1 is not accepted)"),
        "i_structure_utf16le_document": (.refused, "not UTF-8"),
        "i_structure_utf16_bom": (.refused, "not UTF-8"),
        // RFC 8259 §8.1: senders MUST NOT add a byte order mark; parsers MAY ignore one. Herald refuses it, so a payload
        // is accepted byte for byte as it would be relayed.
        "i_structure_utf8_bom": (.refused, "byte order mark"),
        // RFC 8259 §4: names SHOULD be unique. Accepted; lookups see the last member (as JavaScript's JSON.parse), and
        // `JSONObject.members` keeps both, so the payload is stored and relayed as sent.
        "i_object_duplicate_key": (.accepted, "duplicates kept, the last one wins on lookup"),
        "i_object_duplicate_key_same_value": (.accepted, "duplicates kept, the last one wins on lookup"),
        "i_object_keys_canonically_equivalent": (.accepted, "distinct members; a lookup compares names as Swift strings"),
        // RFC 8259 §9: an implementation may limit nesting. JSONParser.maximumDepth is 64, so hostile input cannot
        // exhaust the stack; APNs payloads (4 KB) have no use for more.
        "i_structure_nesting_65": (.refused, "nesting deeper than JSONParser.maximumDepth (64)"),
        "i_structure_nesting_500": (.refused, "nesting deeper than JSONParser.maximumDepth (64)"),
    ]

    static let directory = Bundle.module.resourceURL!.appendingPathComponent("JSONTestSuite")

    static let caseNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    static func parse(_ name: String) throws -> Result<JSONValue, JSONParser.Failure> {
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name + ".json")))
        return Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }
    }

    @Test("the case files are there: y_, n_ and i_ cases")
    func caseFiles() {
        #expect(Self.caseNames.filter { $0.hasPrefix("y_") }.count >= 40)
        #expect(Self.caseNames.filter { $0.hasPrefix("n_") }.count >= 60)
        #expect(Self.caseNames.allSatisfy { ["y_", "n_", "i_"].contains($0.prefix(2)) })
    }

    @Test("y_ documents parse", arguments: caseNames.filter { $0.hasPrefix("y_") })
    func accepted(_ name: String) throws {
        let result = try Self.parse(name)
        if case .failure(let failure) = result { Issue.record("\(name) refused: \(failure)") }
    }

    @Test("n_ documents are refused", arguments: caseNames.filter { $0.hasPrefix("n_") })
    func refused(_ name: String) throws {
        let result = try Self.parse(name)
        if case .success(let value) = result { Issue.record("\(name) accepted as \(value)") }
    }

    @Test("i_ documents get Herald's documented answer", arguments: caseNames.filter { $0.hasPrefix("i_") })
    func implementationDefinedCase(_ name: String) throws {
        let choice = try #require(Self.implementationDefined[name], "\(name) has no documented choice")
        switch (choice.outcome, try Self.parse(name)) {
        case (.accepted, .success), (.refused, .failure): break
        case (.accepted, .failure(let failure)): Issue.record("\(name) refused (\(failure)); documented: \(choice.reason)")
        case (.refused, .success(let value)): Issue.record("\(name) accepted as \(value); documented: \(choice.reason)")
        }
    }

    @Test("every documented choice has its case file")
    func documentedChoicesHaveFiles() {
        #expect(Set(Self.implementationDefined.keys) == Set(Self.caseNames.filter { $0.hasPrefix("i_") }))
    }

    @Test("values of a few accepted cases")
    func acceptedValues() throws {
        #expect(try Self.parse("y_string_surrogate_pair").get() == .array([.string("😀")]))
        #expect(try Self.parse("y_string_escaped_null").get() == .array([.string("\u{0}")]))
        #expect(try Self.parse("y_number_negative_zero").get().arrayValue?.first?.doubleValue?.sign == .minus)
        #expect(try Self.parse("i_number_tiny_exponent").get() == .array([.double(0)]))
        let duplicate = try #require(try Self.parse("i_object_duplicate_key").get().objectValue)
        #expect(duplicate["a"] == .int(2))
        #expect(duplicate.members.count == 2)
    }

    @Test("the member scanner agrees with the parser on every accepted object document", arguments: caseNames.filter { !$0.hasPrefix("n_") })
    func scannerAgreesWithParser(_ name: String) throws {
        guard case .success(.object(let object)) = try Self.parse(name) else { return }
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name + ".json")))
        let members = Array(JSONMemberScanner(bytes))
        #expect(members.map { JSONMemberScanner.name(of: $0, in: bytes) } == object.memberNames)
        for (member, expected) in zip(members, object.members) {
            #expect(try JSONParser.parse(bytes[member.value]) == expected.value, "\(name): \(expected.key)")
        }
    }

    @Test("the member scanner stops without a crash on every refused document", arguments: caseNames.filter { $0.hasPrefix("n_") })
    func scannerOnRefusedDocuments(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name + ".json")))
        for member in JSONMemberScanner(bytes) {
            #expect(member.name.upperBound <= member.value.lowerBound && member.value.upperBound <= bytes.count)
        }
    }
}
