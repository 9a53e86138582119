import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Live Activity tokens in the registry", .tier(.unit))
struct SQLiteStoreActivityTokenTests {
    static let bundleID = "com.example.app"

    static func request(
        _ device: String,
        _ kind: TokenKind,
        type: String = "DeliveryAttributes",
        token: DeviceToken = .random()
    ) -> ActivityTokenRequest {
        ActivityTokenRequest(deviceID: device, bundleID: bundleID, environment: .sandbox, kind: kind, token: token, activityType: type)
    }

    @Test("A v6 file gains the token kinds: its tokens are device tokens, and a device may then hold activity tokens beside its app's token")
    func migratesVersion6() async throws {
        try await withTemporaryDirectory { directory in
            try SQLiteSchemaMigrationTests.makeFile(in: directory, migratedUpTo: "v6") { _ in }
            try await withStore(in: directory) { store in
                let applied = try await store.pool.read { try SQLiteSchema.migrator.appliedMigrations($0) }
                #expect(applied.contains("v7"))
                let oldToken = try #require(DeviceToken(hex: SQLiteSchemaMigrationTests.newer))
                let old = try #require(try store.lookup(oldToken))
                #expect(old.kind == .device)
                #expect(old.activityType == nil)
                let columns = try await store.pool.read { db in try db.columns(in: "device_token").map(\.name) }
                #expect(columns.contains("kind") && columns.contains("activity_type"))

                let device = try await store.addDevice(name: "phone").device.id
                let app = try await store.registerAppToken(deviceID: device, bundleID: Self.bundleID, environment: .sandbox)
                let first = try await store.registerActivityToken(Self.request(device, .activity), limit: 4)
                let second = try await store.registerActivityToken(Self.request(device, .activity), limit: 4)
                #expect(first.isNew && second.isNew)
                // The app's own token is still the one device token (the rebuilt index is per kind).
                let again = try await store.registerAppToken(deviceID: device, bundleID: Self.bundleID, environment: .sandbox)
                #expect(again.token.token == app.token.token && !again.isNew)
                #expect(try store.lookup(first.token.token)?.kind == .activity)
                #expect(try store.lookup(first.token.token)?.activityType == "DeliveryAttributes")
            }
        }
    }

    @Test("Registering is idempotent, a new push-to-start token retires the type's old one, and the limit holds")
    func rulesAndLimit() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let device = try await store.addDevice(name: "phone").device.id
                let start = try await store.registerActivityToken(Self.request(device, .pushToStart), limit: 2)
                let same = try await store.registerActivityToken(Self.request(device, .pushToStart, token: start.token.token), limit: 2)
                #expect(!same.isNew)
                // The same token as another kind is someone else's token.
                await #expect(throws: StoreError.duplicateDeviceToken) {
                    try await store.registerActivityToken(Self.request(device, .activity, token: start.token.token), limit: 2)
                }
                let rotated = try await store.registerActivityToken(Self.request(device, .pushToStart), limit: 2)
                #expect(try store.lookup(start.token.token)?.isActive == false)
                #expect(try store.lookup(rotated.token.token)?.isActive == true)
                _ = try await store.registerActivityToken(Self.request(device, .activity), limit: 2)
                await #expect(throws: StoreError.tooManyTokens) {
                    try await store.registerActivityToken(Self.request(device, .activity), limit: 2)
                }
                await #expect(throws: StoreError.invalidRecord) {
                    try await store.registerActivityToken(Self.request(device, .device), limit: 2)
                }
                await #expect(throws: StoreError.unknownDevice) {
                    try await store.registerActivityToken(Self.request(UUID().uuidString.lowercased(), .activity), limit: 2)
                }
                let kinds = try await store.tokens(deviceID: device).map(\.kind)
                #expect(kinds.filter { $0 == .pushToStart }.count == 2 && kinds.filter { $0 == .activity }.count == 1)
            }
        }
    }
}
