import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Device tokens and signing keys", .tier(.process))
struct SQLiteStoreRegistryTests {
    @Test("A registered token is found with its app and environment; an unknown one is not", arguments: StoreBackend.allCases)
    func registerAndLookUp(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 5000)
            try await withStore(in: directory, backend: backend, clock: clock) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .production, deviceID: "phone-1")
                #expect(token.hex.count == 64)
                let record = try #require(try store.lookup(token))
                #expect(record.bundleID == "com.example.app")
                #expect(record.environment == .production)
                #expect(record.deviceID == "phone-1")
                #expect(record.registeredAtMilliseconds == 5000)
                #expect(record.isActive)
                #expect(try store.lookup(DeviceToken.random()) == nil)
                await #expect(throws: StoreError.duplicateDeviceToken) {
                    try await store.registerToken(token, bundleID: "com.example.other", environment: .sandbox, deviceID: nil)
                }
                await #expect(throws: StoreError.invalidRecord) {
                    try await store.registerToken(DeviceToken.random(), bundleID: "", environment: .sandbox, deviceID: nil)
                }
            }
        }
    }

    @Test("Unregistering keeps the first time and is idempotent; an unknown token is an error", arguments: StoreBackend.allCases)
    func unregister(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend, clock: ManualWallClock(milliseconds: 1000)) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let first = try await store.unregister(token, atMilliseconds: 2000)
                let second = try await store.unregister(token, atMilliseconds: 3000)
                #expect(first.unregisteredAtMilliseconds == 2000)
                #expect(second.unregisteredAtMilliseconds == 2000)
                #expect(try store.lookup(token)?.unregisteredAtMilliseconds == 2000)
                await #expect(throws: StoreError.unknownDeviceToken) {
                    try await store.unregister(DeviceToken.random(), atMilliseconds: 2000)
                }
                let counts = try await store.counts()
                #expect(counts.deviceTokens == 1)
                #expect(counts.activeDeviceTokens == 0)
            }
        }
    }

    @Test("A token registered by another process is found at once; its unregistration is seen within the refresh", arguments: StoreBackend.allCases)
    func crossProcessTokens(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 10_000)
            try await withStore(in: directory, backend: backend, clock: clock) { server in
                try await withStore(in: directory, backend: backend, clock: clock) { cli in
                    let token = try await cli.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                    // A miss always asks the file.
                    #expect(try server.lookup(token)?.isActive == true)

                    try await cli.unregister(token, atMilliseconds: 10_001)
                    // Within the refresh interval the cache may answer from memory...
                    clock.advance(seconds: 0.05)
                    let cached = try server.lookup(token)
                    #expect(cached != nil)
                    // ...and once it has passed, the change is seen.
                    clock.advance(seconds: 0.25)
                    #expect(try server.lookup(token)?.unregisteredAtMilliseconds == 10_001)
                    // A token the other process registered after this one's last refresh is found too.
                    let other = try await cli.registerToken(bundleID: "com.example.app", environment: .production, deviceID: nil)
                    clock.advance(seconds: 0.25)
                    #expect(try server.lookup(other)?.environment == .production)
                }
            }
        }
    }

    @Test("An unknown token is answered from memory for the refresh interval, then the file is asked again", arguments: StoreBackend.allCases)
    func rememberedMiss(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 10_000)
            try await withStore(in: directory, backend: backend, clock: clock) { server in
                try await withStore(in: directory, backend: backend, clock: clock) { cli in
                    let hex = String(repeating: "5a", count: 32)
                    let token = DeviceToken(hex: hex)!
                    #expect(try server.lookup(token) == nil)
                    if let server = server as? SQLiteStore { #expect(server.registry.withLock { $0.misses[hex] } == 10_000) }
                    // Registered by another process: within the interval the remembered miss answers (a read of the
                    // file would have found it).
                    _ = try await cli.registerToken(token, bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                    clock.advance(seconds: 0.1)
                    #expect(try server.lookup(token) == nil)
                    // Once the interval has passed the file is asked, and the token is found and cached.
                    clock.advance(seconds: 0.15)
                    #expect(try server.lookup(token)?.isActive == true)
                    if let server = server as? SQLiteStore { #expect(server.registry.withLock { $0.misses[hex] } == nil) }
                    // A token this process registers is found at once, even right after a miss.
                    let mine = DeviceToken(hex: String(repeating: "6b", count: 32))!
                    #expect(try server.lookup(mine) == nil)
                    _ = try await server.registerToken(mine, bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                    #expect(try server.lookup(mine)?.isActive == true)
                }
            }
        }
    }

    @Test("Remembered misses are bounded: at the limit they are all forgotten; a clock that went back asks the file")
    func missesBounded() {
        var cache = RegistryCache()
        for index in 0..<RegistryCache.maximumMisses {
            cache.recordMiss(String(index), nowMilliseconds: 100)
        }
        #expect(cache.misses.count == RegistryCache.maximumMisses)
        #expect(cache.missAnswer("7", nowMilliseconds: 150, refreshInterval: 200))
        #expect(!cache.missAnswer("7", nowMilliseconds: 300, refreshInterval: 200))
        #expect(!cache.missAnswer("7", nowMilliseconds: 99, refreshInterval: 200))
        #expect(!cache.missAnswer("unknown", nowMilliseconds: 150, refreshInterval: 200))
        cache.recordMiss("one more", nowMilliseconds: 100)
        #expect(cache.misses.count == 1)
    }

    @Test("Signing keys: add, list, look up, remove; duplicates and unknown ids are errors", arguments: StoreBackend.allCases)
    func signingKeys(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory, backend: backend) { store in
                let key = SigningKeyRecord(
                    keyID: "ABC123DEFG",
                    teamID: "DEF123GHIJ",
                    scope: .sandbox,
                    topics: ["com.example.app", "com.example.app.voip"],
                    publicKeyPEM: samplePublicKeyPEM,
                    createdAtMilliseconds: 1
                )
                let open = SigningKeyRecord(
                    keyID: "ZZZ9999999",
                    teamID: "DEF123GHIJ",
                    scope: .both,
                    topics: nil,
                    publicKeyPEM: samplePublicKeyPEM,
                    createdAtMilliseconds: 2
                )
                try await store.addSigningKey(key)
                try await store.addSigningKey(open)
                #expect(try await store.signingKeys() == [key, open])
                #expect(try store.signingKey(keyID: "ABC123DEFG") == key)
                #expect(key.scope.allows(.sandbox) && !key.scope.allows(.production))
                #expect(!key.allows(topic: "com.example.other") && open.allows(topic: "com.example.other"))
                await #expect(throws: StoreError.duplicateSigningKey) { try await store.addSigningKey(key) }

                var bad = key
                bad.keyID = "bad key"
                await #expect(throws: StoreError.invalidRecord) { try await store.addSigningKey(bad) }

                try await store.removeSigningKey(keyID: "ABC123DEFG")
                #expect(try store.signingKey(keyID: "ABC123DEFG") == nil)
                await #expect(throws: StoreError.unknownSigningKey) { try await store.removeSigningKey(keyID: "ABC123DEFG") }
                #expect(try await store.counts().signingKeys == 1)
            }
        }
    }

    @Test("A key added or removed by another process is seen by the server's cache", arguments: StoreBackend.allCases)
    func crossProcessSigningKeys(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 10_000)
            try await withStore(in: directory, backend: backend, clock: clock) { server in
                try await withStore(in: directory, backend: backend, clock: clock) { cli in
                    #expect(try server.signingKey(keyID: "KEY0000001") == nil)
                    let key = SigningKeyRecord(
                        keyID: "KEY0000001",
                        teamID: "TEAM000001",
                        scope: .production,
                        topics: nil,
                        publicKeyPEM: samplePublicKeyPEM,
                        createdAtMilliseconds: 10_000
                    )
                    try await cli.addSigningKey(key)
                    #expect(try server.signingKey(keyID: "KEY0000001") == key)
                    try await cli.removeSigningKey(keyID: "KEY0000001")
                    clock.advance(seconds: 0.3)
                    #expect(try server.signingKey(keyID: "KEY0000001") == nil)
                }
            }
        }
    }
}

@Suite("Unregistered tokens for the engine", .tier(.process))
struct SQLiteStoreUnregistrationTests {
    @Test("The first pass finds unregistered tokens with waiting notifications; later passes what changed since", arguments: StoreBackend.allCases)
    func passes(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 1000)
            try await withStore(in: directory, backend: backend, clock: clock) { store in
                let waiting = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let idle = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let later = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                try await store.accept(AcceptedNotification.fixture(token: waiting))
                try await store.accept(AcceptedNotification.fixture(token: later))
                try await store.unregister(waiting, atMilliseconds: 5000)
                try await store.unregister(idle, atMilliseconds: 5001)

                let first = try await store.unregisteredTokens(after: nil)
                #expect(first.tokens.map(\.token) == [waiting])
                #expect(first.tokens.map(\.unregisteredAtMilliseconds) == [5000])
                #expect(try await store.unregisteredTokens(after: first.revision) == UnregisteredTokens(revision: first.revision, tokens: []))

                // Another process (the CLI) unregisters through its own store on the same file.
                try await withStore(in: directory, backend: backend) { other in
                    try await other.unregister(later, atMilliseconds: 6000)
                }
                // A registration moves the revision too, but is not an unregistration.
                _ = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let second = try await store.unregisteredTokens(after: first.revision)
                #expect(second.tokens.map(\.token) == [later])
                #expect(second.revision > first.revision)
                // The hot-path lookup answers from the updated cache.
                #expect(try store.lookup(later)?.unregisteredAtMilliseconds == 6000)
            }
        }
    }
}

@Suite("Apps and their teams", .tier(.process))
struct SQLiteStoreAppTests {
    @Test("An app belongs to one team: added, looked up from the cache, refused for another team, removed", arguments: StoreBackend.allCases)
    func appTeams(_ backend: StoreBackend) async throws {
        try await withTemporaryDirectory { directory in
            let clock = ManualWallClock(milliseconds: 1000)
            try await withStore(in: directory, backend: backend, clock: clock) { store in
                #expect(try store.appTeam(bundleID: "com.example.app") == nil)
                let added = try await store.addApp(bundleID: "com.example.app", teamID: "TEAM1")
                #expect(added == AppRecord(bundleID: "com.example.app", teamID: "TEAM1", createdAtMilliseconds: 1000))
                #expect(try store.appTeam(bundleID: "com.example.app") == "TEAM1")
                // Again for the same team: no change; for another: refused, naming the owner.
                #expect(try await store.addApp(bundleID: "com.example.app", teamID: "TEAM1") == added)
                await #expect(throws: StoreError.appOfAnotherTeam) {
                    try await store.addApp(bundleID: "com.example.app", teamID: "TEAM2")
                }
                await #expect(throws: StoreError.invalidRecord) { try await store.addApp(bundleID: "bad id", teamID: "TEAM1") }
                #expect(try await store.apps() == [added])

                // Another process (the CLI) adds an app: seen after the refresh interval.
                try await withStore(in: directory, backend: backend) { other in
                    try await other.addApp(bundleID: "com.example.other", teamID: "TEAM2")
                }
                clock.advance(seconds: 1)
                #expect(try store.appTeam(bundleID: "com.example.other") == "TEAM2")

                try await store.removeApp(bundleID: "com.example.app")
                #expect(try store.appTeam(bundleID: "com.example.app") == nil)
                await #expect(throws: StoreError.unknownApp) { try await store.removeApp(bundleID: "com.example.app") }
            }
        }
    }
}
