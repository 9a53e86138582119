import HeraldCore
import HeraldTestTiers
import Testing

@Suite("apns-unique-id: derived from the apns-id", .tier(.unit))
struct UniqueIDTests {
    @Test("the same apns-id (in any case) gives the same version 4 unique id, not the apns-id itself")
    func derived() throws {
        let id = try #require(NotificationID("5C1E0D4E-8A4B-4F5E-9A0C-2B1F7D9E6A31"))
        let lower = try #require(NotificationID("5c1e0d4e-8a4b-4f5e-9a0c-2b1f7d9e6a31"))
        #expect(id.uniqueID == lower.uniqueID)
        #expect(id.uniqueID.text != lower.text)
        let characters = Array(id.uniqueID.text)
        #expect(characters.count == 36)
        #expect(characters[14] == "4")
        #expect("89ab".contains(characters[19]))
        #expect(NotificationID(id.uniqueID.text) != nil)
        #expect(id.uniqueID.text == id.uniqueID.text.lowercased())
    }

    @Test("different apns-ids give different unique ids, even one bit apart")
    func distinct() {
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<20_000).map { _ in NotificationID.random(using: &generator) }
        #expect(Set(ids.map(\.uniqueID.text)).count == ids.count)
        let a = NotificationID("00000000-0000-4000-8000-000000000000")!
        let b = NotificationID("00000000-0000-4000-8000-000000000001")!
        #expect(a.uniqueID != b.uniqueID)
        // Sequential apns-ids (time-ordered ones) do not give similar unique ids: they differ in most hex digits.
        let differing = zip(a.uniqueID.text, b.uniqueID.text).filter { $0 != $1 }.count
        #expect(differing > 16)
    }
}
