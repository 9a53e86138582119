import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Devices and their secrets", .tier(.unit))
struct SQLiteStoreDeviceTests {
    @Test("A new device has a lowercase UUID id, a 64-hex secret, the clock's time; only the secret's hash is stored")
    func addDevice() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, clock: ManualWallClock(milliseconds: 7000)) { store in
                let credentials = try await store.addDevice(name: "Anna's phone")
                let device = credentials.device
                #expect(UUID(uuidString: device.id) != nil && device.id == device.id.lowercased())
                #expect(device.name == "Anna's phone")
                #expect(device.createdAtMilliseconds == 7000)
                #expect(credentials.secret.count == 64 && credentials.secret.allSatisfy { "0123456789abcdef".contains($0) })

                let stored = try await store.pool.read { db in
                    try String.fetchOne(db, sql: "SELECT secret_sha256 FROM device WHERE id = ?", arguments: [device.id])
                }
                #expect(stored == DeviceSecret.digest(of: credentials.secret))
                #expect(stored != credentials.secret)
                #expect(try await store.device(id: device.id) == device)
                #expect(try await store.counts().devices == 1)

                let other = try await store.addDevice(name: "Anna's phone")
                #expect(other.device.id != device.id)
                #expect(other.secret != credentials.secret)
            }
        }
    }

    @Test("Authentication: the right secret answers the device; a wrong secret or an unknown id answers nil")
    func authenticate() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let credentials = try await store.addDevice(name: "tablet")
                let device = credentials.device
                #expect(try await store.authenticateDevice(id: device.id, secret: credentials.secret) == device)
                // Ids are compared case-insensitively; secrets exactly.
                #expect(try await store.authenticateDevice(id: device.id.uppercased(), secret: credentials.secret) == device)
                #expect(try await store.authenticateDevice(id: device.id, secret: credentials.secret.uppercased()) == nil)
                var wrong = Array(credentials.secret)
                wrong[63] = wrong[63] == "0" ? "1" : "0"
                #expect(try await store.authenticateDevice(id: device.id, secret: String(wrong)) == nil)
                #expect(try await store.authenticateDevice(id: device.id, secret: "") == nil)
                #expect(try await store.authenticateDevice(id: UUID().uuidString.lowercased(), secret: credentials.secret) == nil)
                #expect(try await store.authenticateDevice(id: "not-a-device", secret: credentials.secret) == nil)
                // The stored hash itself is not a secret that works.
                let digest = DeviceSecret.digest(of: credentials.secret)
                #expect(try await store.authenticateDevice(id: device.id, secret: digest) == nil)
            }
        }
    }

    @Test("Devices list oldest first, same-millisecond devices in the order added; an unknown id is nil")
    func listDevices() async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 1000)
            try await withStore(in: directory, clock: clock) { store in
                var added: [DeviceRecord] = []
                for name in ["a", "b", "c"] {
                    added.append(try await store.addDevice(name: name).device)
                }
                clock.advance(seconds: 1)
                added.append(try await store.addDevice(name: "d").device)
                #expect(try await store.devices() == added)
                #expect(try await store.device(id: added[2].id.uppercased()) == added[2])
                #expect(try await store.device(id: UUID().uuidString) == nil)
            }
        }
    }

    @Test(
        "A device name must be 1 to 255 characters without control characters",
        arguments: ["", String(repeating: "x", count: 256), "a\nb", "tab\there"]
    )
    func invalidNames(name: String) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                await #expect(throws: StoreError.invalidRecord) { try await store.addDevice(name: name) }
                let devices = try await store.devices()
                #expect(devices.isEmpty)
            }
        }
    }

    @Test("The longest name and non-ASCII names are accepted")
    func validNames() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let longest = String(repeating: "é", count: 255)
                let added = [try await store.addDevice(name: longest).device, try await store.addDevice(name: "手机 📱").device]
                #expect(added.map(\.name) == [longest, "手机 📱"])
                #expect(try await store.devices() == added)
            }
        }
    }

    @Test("The schema refuses devices that break its rules")
    func schemaRefusesBadDevices() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let hash = String(repeating: "a", count: 64)
                let invalid = [
                    "INSERT INTO device VALUES ('6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A', 'n', '\(hash)', 0)",
                    "INSERT INTO device VALUES ('6f1e9c0b6f6a-4e0a-9c5e-2e7e1d2c3b4a-', 'n', '\(hash)', 0)",
                    "INSERT INTO device VALUES ('phone-1', 'n', '\(hash)', 0)",
                    "INSERT INTO device VALUES ('6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a', '', '\(hash)', 0)",
                    "INSERT INTO device VALUES ('6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a', 'n', 'secret', 0)",
                    "INSERT INTO device VALUES ('6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a', 'n', '\(hash.uppercased())', 0)",
                    "INSERT INTO device VALUES ('6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a', 'n', '\(hash)', 'yesterday')",
                ]
                for sql in invalid {
                    await #expect(throws: DatabaseError.self, "\(sql)") {
                        try await store.pool.write { try $0.execute(sql: sql) }
                    }
                }
                try await store.pool.write { db in
                    try db.execute(sql: "INSERT INTO device VALUES ('6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a', 'n', '\(hash)', 0)")
                }
                #expect(try await store.devices().map(\.id) == ["6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a"])
            }
        }
    }
}

@Suite("Device secrets", .tier(.unit))
struct DeviceSecretTests {
    @Test("Secrets are 64 lowercase hex digits and differ each time")
    func generate() {
        let secrets = (0..<100).map { _ in DeviceSecret.generate() }
        #expect(Set(secrets).count == 100)
        for secret in secrets {
            #expect(secret.utf8.count == 64 && secret.allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    @Test("The digest is SHA-256 in lowercase hex; matching accepts exactly the secret")
    func digestAndMatch() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(DeviceSecret.digest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let secret = DeviceSecret.generate()
        let digest = DeviceSecret.digest(of: secret)
        #expect(DeviceSecret.matches(secret, storedDigest: digest))
        #expect(!DeviceSecret.matches(secret + "0", storedDigest: digest))
        #expect(!DeviceSecret.matches(String(secret.dropLast()), storedDigest: digest))
        #expect(!DeviceSecret.matches(secret, storedDigest: String(digest.dropLast())))
        #expect(!DeviceSecret.matches(secret, storedDigest: ""))
    }
}
