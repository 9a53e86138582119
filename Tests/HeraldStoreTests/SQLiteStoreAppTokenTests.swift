import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("App tokens on devices", .tier(.unit))
struct SQLiteStoreAppTokenTests {
    @Test("An app gets one token, the same on every call, seen by the hot-path lookup at once")
    func stableToken() async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 10_000)
            try await withStore(in: directory, clock: clock) { store in
                let device = try await store.addDevice(name: "phone").device
                let first = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox)
                #expect(first.isNew)
                #expect(first.token.deviceID == device.id)
                #expect(first.token.bundleID == "com.example.app" && first.token.environment == .sandbox)
                #expect(first.token.registeredAtMilliseconds == 10_000 && first.token.isActive)
                #expect(try store.lookup(first.token.token) == first.token)

                clock.advance(seconds: 60)
                let again = try await store.registerAppToken(deviceID: device.id.uppercased(), bundleID: "com.example.app", environment: .sandbox)
                #expect(!again.isNew)
                #expect(again.token == first.token)
                #expect(try await store.activeToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox) == first.token)

                // Another environment or another app is another token.
                let production = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .production)
                let other = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.other", environment: .sandbox)
                #expect(production.isNew && other.isNew)
                #expect(Set([first.token.token, production.token.token, other.token.token]).count == 3)
                #expect(try await store.tokens(deviceID: device.id).count == 3)
            }
        }
    }

    @Test("After the token is unregistered the app gets a new one; the old one keeps its time")
    func newTokenAfterUnregister() async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 1000)
            try await withStore(in: directory, clock: clock) { store in
                let device = try await store.addDevice(name: "phone").device
                let old = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox).token
                try await store.unregister(old.token, atMilliseconds: 2000)
                #expect(try await store.activeToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox) == nil)

                clock.set(milliseconds: 3000)
                let renewed = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox)
                #expect(renewed.isNew)
                #expect(renewed.token.token != old.token)
                #expect(renewed.token.registeredAtMilliseconds == 3000)
                #expect(try store.lookup(old.token)?.unregisteredAtMilliseconds == 2000)
                #expect(try store.lookup(renewed.token.token)?.isActive == true)

                let history = try await store.tokens(deviceID: device.id)
                #expect(history.map(\.token) == [old.token, renewed.token.token])
                #expect(history.map(\.isActive) == [false, true])
                #expect(
                    try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox) == renewed.asExisting
                )
            }
        }
    }

    @Test("An unknown device is an error and issues nothing; a bad bundle id is an invalid record")
    func unknownDevice() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                await #expect(throws: StoreError.unknownDevice) {
                    try await store.registerAppToken(deviceID: UUID().uuidString, bundleID: "com.example.app", environment: .sandbox)
                }
                let device = try await store.addDevice(name: "phone").device
                await #expect(throws: StoreError.invalidRecord) {
                    try await store.registerAppToken(deviceID: device.id, bundleID: "", environment: .sandbox)
                }
                #expect(try await store.counts().deviceTokens == 0)
                #expect(try await store.tokens(deviceID: device.id).isEmpty)
                #expect(try await store.activeToken(deviceID: "nobody", bundleID: "com.example.app", environment: .sandbox) == nil)
            }
        }
    }

    @Test("Concurrent registrations of one app agree on one token, in one process and across two")
    func concurrentRegistrations() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { server in
                try await withStore(in: directory) { cli in
                    let device = try await server.addDevice(name: "phone").device
                    let registrations = try await withThrowingTaskGroup(of: AppTokenRegistration.self) { group in
                        for index in 0..<8 {
                            let store = index.isMultiple(of: 2) ? server : cli
                            group.addTask {
                                try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox)
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(registrations.count == 8)
                    #expect(Set(registrations.map(\.token)).count == 1)
                    #expect(registrations.filter(\.isNew).count == 1)
                    #expect(try await server.tokens(deviceID: device.id).count == 1)
                    let token = try #require(registrations.first?.token.token)
                    #expect(try server.lookup(token)?.deviceID == device.id)
                    #expect(try cli.lookup(token)?.deviceID == device.id)
                }
            }
        }
    }

    @Test("The schema allows one active token per device, app and environment; inactive and device-less ones are free")
    func partialUniqueIndex() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let device = try await store.addDevice(name: "phone").device
                let active = try await store.registerAppToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox).token
                // A second active token for the same app on the device is refused, by the store API and by SQL.
                await #expect(throws: StoreError.invalidRecord) {
                    try await store.registerToken(DeviceToken.random(), bundleID: "com.example.app", environment: .sandbox, deviceID: device.id)
                }
                let hex = DeviceToken.random().hex
                await #expect(throws: DatabaseError.self) {
                    try await store.pool.write { db in
                        try db.execute(
                            sql: """
                                INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
                                VALUES (?, 'com.example.app', 'sandbox', ?, 0)
                                """,
                            arguments: [hex, device.id]
                        )
                    }
                }
                // Unregistered tokens of the app, and tokens without a device, may be many.
                try await store.pool.write { db in
                    for _ in 0..<2 {
                        try db.execute(
                            sql: """
                                INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at, unregistered_at)
                                VALUES (?, 'com.example.app', 'sandbox', ?, 0, 1)
                                """,
                            arguments: [DeviceToken.random().hex, device.id]
                        )
                    }
                }
                _ = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                _ = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let counts = try await store.counts()
                #expect(counts.deviceTokens == 5)
                #expect(counts.activeDeviceTokens == 3)
                #expect(try await store.activeToken(deviceID: device.id, bundleID: "com.example.app", environment: .sandbox) == active)
                // Tokens list oldest first: the two unregistered at time 0, then the active one.
                #expect(try await store.tokens(deviceID: device.id).last == active)
            }
        }
    }
}

extension AppTokenRegistration {
    /// The same registration as a later call answers it: the same token, not new.
    fileprivate var asExisting: AppTokenRegistration { AppTokenRegistration(token: token, isNew: false) }
}
