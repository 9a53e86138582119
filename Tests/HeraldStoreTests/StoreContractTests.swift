import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

/// The rules every ``NotificationStore`` keeps, run against SQLite and PostgreSQL alike (docs/postgresql.md).
@Suite("The store contract, on SQLite and PostgreSQL", .tier(.process))
struct StoreContractTests {
    static let app = "com.example.app"

    /// A registered token of `Self.app` on a new device.
    private func registeredToken(_ store: any NotificationStore) async throws -> DeviceToken {
        let device = try await store.addDevice(name: "phone")
        return try await store.registerAppToken(deviceID: device.device.id, bundleID: Self.app, environment: .sandbox).token.token
    }

    @Test(
        "Group commit: each notification gets a growing sequence; an unknown token fails alone; pending lists them in order",
        arguments: StoreBackend.allCases
    )
    func groupCommit(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            let notifications = (0..<50).map {
                AcceptedNotification.fixture(token: token, alert: "n\($0)", acceptedAt: 1_700_000_000_000 + Int64($0))
            }
            let unknown = AcceptedNotification.fixture(token: DeviceToken.random())
            let results = await withTaskGroup(of: (Int, Result<Int64, StoreError>).self) { group in
                for (index, notification) in (notifications + [unknown]).enumerated() {
                    group.addTask { (index, await enqueueAndWait(store, notification)) }
                }
                var results: [Int: Result<Int64, StoreError>] = [:]
                for await (index, result) in group { results[index] = result }
                return results
            }
            #expect(results[50].map { if case .failure(let error) = $0 { error == .unknownDeviceToken } else { false } } == true)
            let sequences = try (0..<50).map { try #require(results[$0]).get() }
            #expect(Set(sequences).count == 50)

            let pending = try await store.pendingNotifications()
            #expect(pending.count == 50)
            #expect(pending.map(\.sequence) == pending.map(\.sequence).sorted())
            let stored = try #require(try await store.notification(notifications[7].id))
            #expect(stored.notification == notifications[7])
            #expect(stored.state == .stored)
            #expect(stored.sequence == sequences[7])
            #expect(try await store.notification(unknown.id) == nil)
            #expect(try await store.counts().notifications == 50)
        }
    }

    @Test("Every field of a notification comes back as accepted, options absent or present", arguments: StoreBackend.allCases)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            var full = AcceptedNotification.fixture(token: token, collapseID: "score", alert: "all")
            full.expiration = 1_900_000_000
            full.priority = .powerConsiderate
            full.pushType = .background
            full.topic = Self.app + ".voip"
            full.payload = Array(#"{"aps":{"content-available":1},"é":"\u{1F600}"}"#.utf8)
            let bare = AcceptedNotification.fixture(token: token, id: NotificationID("A1B2C3D4-0000-4000-8000-00000000000F")!)
            try await store.accept(full)
            try await store.accept(bare)
            #expect(try await store.notification(full.id)?.notification == full)
            // The provider's form of the id (uppercase here) is kept; lookups ignore case.
            let found = try #require(try await store.notification(NotificationID("a1b2c3d4-0000-4000-8000-00000000000f")!))
            #expect(found.notification.id.text == "A1B2C3D4-0000-4000-8000-00000000000F")
            #expect(found.notification == bare)
            let listed = try await store.listNotifications(token: token, limit: 10)
            #expect(listed.map(\.notification.id) == [bare.id, full.id])
            #expect(try await store.listNotifications(token: token, limit: 1).map(\.notification.id) == [bare.id])
            #expect(try await store.listNotifications(token: nil, limit: 0).isEmpty)
        }
    }

    @Test(
        "A reused apns-id replaces the stored notification; its trace keeps the older events, then replaced and accepted",
        arguments: StoreBackend.allCases
    )
    func reusedID(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            let first = AcceptedNotification.fixture(token: token, alert: "first", acceptedAt: 1_000)
            let firstSequence = try await store.accept(first)
            try await store.record([
                DeliveryChange(notificationID: first.id, sequence: firstSequence, event: .stored, atMilliseconds: 1_100, detailJSON: #"{"slot": 1}"#)
            ])
            var second = AcceptedNotification.fixture(token: token, id: first.id, alert: "second", acceptedAt: 2_000)
            second.collapseID = "c"
            let secondSequence = try await store.accept(second)
            #expect(secondSequence > firstSequence)
            #expect(try await store.notification(first.id)?.notification.payload == second.payload)
            #expect(try await store.counts().notifications == 1)

            let trace = try await store.trace(first.id)
            #expect(trace.map(\.kind) == [.accepted, .stored, .replaced, .accepted])
            #expect(trace.map(\.id) == [1, 2, 3, 4])
            #expect(trace[0].detailJSON == #"{"seq":\#(firstSequence),"token":"\#(token.hex)","topic":"\#(Self.app)"}"#)
            #expect(trace[1].detailJSON == #"{"slot":1}"#)
            #expect(
                trace[2].detailJSON
                    == #"{"reason":"duplicate-apns-id","previousSeq":\#(firstSequence),"previousState":"stored","replacedBySeq":\#(secondSequence)}"#
            )
            #expect(trace[3].detailJSON == #"{"seq":\#(secondSequence),"token":"\#(token.hex)","topic":"\#(Self.app)"}"#)
            #expect(trace.allSatisfy { $0.notificationKey == first.id.key })
            #expect(try await store.trace(NotificationID.random()).isEmpty)

            // Two of one id in one batch: the later one wins.
            let third = AcceptedNotification.fixture(token: token, alert: "third")
            var fourth = third
            fourth.payload = Array(#"{"aps":{"alert":"fourth"}}"#.utf8)
            async let a = enqueueAndWait(store, third)
            async let b = enqueueAndWait(store, fourth)
            let (resultA, resultB) = await (a, b)
            #expect(try resultA.get() != resultB.get())
            let kept = try #require(try await store.notification(third.id))
            let (older, newer) = (min(try resultA.get(), try resultB.get()), max(try resultA.get(), try resultB.get()))
            #expect(kept.sequence == newer)
            let batchTrace = try await store.trace(third.id)
            #expect(batchTrace.map(\.kind) == [.accepted, .replaced, .accepted])
            #expect(batchTrace.first?.detailJSON?.hasPrefix(#"{"seq":\#(older),"#) == true)
            #expect(batchTrace.last?.detailJSON?.hasPrefix(#"{"seq":\#(newer),"#) == true)

            // A third use of the first id: the whole history, in order, each acceptance with its own row's detail.
            let thirdSequence = try await store.accept(
                AcceptedNotification.fixture(token: token, id: first.id, alert: "third use", acceptedAt: 3_000)
            )
            let chain = try await store.trace(first.id)
            #expect(chain.map(\.kind) == [.accepted, .stored, .replaced, .accepted, .replaced, .accepted])
            #expect(chain.filter { $0.kind == .accepted }.map(\.atMilliseconds) == [1_000, 2_000, 3_000])
            let acceptedSequences = chain.filter { $0.kind == .accepted }.compactMap(\.detailJSON).map { $0.split(separator: ",")[0] }
            #expect(acceptedSequences == [#"{"seq":\#(firstSequence)"#, #"{"seq":\#(secondSequence)"#, #"{"seq":\#(thirdSequence)"#])
            #expect(try await store.counts().traceEvents == chain.count + batchTrace.count)
        }
    }

    @Test(
        "Delivery changes: the first state change of a stored notification wins, events are kept in order, unknown ids are skipped",
        arguments: StoreBackend.allCases
    )
    func deliveryChanges(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            let a = AcceptedNotification.fixture(token: token, alert: "a")
            let b = AcceptedNotification.fixture(token: token, alert: "b")
            let sequenceA = try await store.accept(a)
            try await store.accept(b)
            try await store.record([
                DeliveryChange(notificationID: a.id, sequence: sequenceA, event: .sent, atMilliseconds: 10, detailJSON: #"{"attempt":1}"#),
                DeliveryChange(notificationID: a.id, sequence: sequenceA, event: .acknowledged, newState: .delivered, atMilliseconds: 11),
                DeliveryChange(notificationID: a.id, sequence: sequenceA, event: .expired, newState: .expired, atMilliseconds: 12),
                DeliveryChange(notificationID: NotificationID.random(), event: .sent, newState: .delivered, atMilliseconds: 13),
                DeliveryChange(notificationID: b.id, event: .replaced, newState: .replaced, atMilliseconds: 14),
            ])
            #expect(try await store.notification(a.id)?.state == .delivered)
            #expect(try await store.notification(b.id)?.state == .replaced)
            #expect(try await store.trace(a.id).map(\.kind) == [.accepted, .sent, .acknowledged, .expired])
            #expect(try await store.trace(a.id)[1].detailJSON == #"{"attempt":1}"#)
            #expect(try await store.trace(a.id).map(\.atMilliseconds).dropFirst() == [10, 11, 12])
            #expect(try await store.pendingNotifications().isEmpty)
            // Final states stay final.
            try await store.record([DeliveryChange(notificationID: a.id, event: .stored, newState: .stored, atMilliseconds: 20)])
            #expect(try await store.notification(a.id)?.state == .delivered)
            let counts = try await store.counts()
            #expect(counts.notificationsByState == [.delivered: 1, .replaced: 1])
            #expect(counts.traceEvents == 7)
        }
    }

    @Test(
        "A bad change fails its whole batch: a kind that is not lowercase letters, a detail that is not a JSON object",
        arguments: StoreBackend.allCases
    )
    func badChanges(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            let a = AcceptedNotification.fixture(token: token)
            try await store.accept(a)
            let good = DeliveryChange(notificationID: a.id, event: .sent, newState: .delivered, atMilliseconds: 1)
            for bad in [
                DeliveryChange(notificationID: a.id, event: TraceEventKind(rawValue: "Sent"), atMilliseconds: 2),
                DeliveryChange(notificationID: a.id, event: .sent, atMilliseconds: 2, detailJSON: "[1]"),
                DeliveryChange(notificationID: a.id, event: .sent, atMilliseconds: 2, detailJSON: #"{"open": "#),
            ] {
                await #expect(throws: StoreError.invalidRecord) { try await store.record([good, bad]) }
            }
            #expect(try await store.notification(a.id)?.state == .stored)
            #expect(try await store.trace(a.id).count == 1)
        }
    }

    @Test("A change naming a replaced row joins the apns-id's trace but never moves the newer notification's state", arguments: StoreBackend.allCases)
    func lateChangeOfReplacedRow(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let token = try await registeredToken(store)
            let older = AcceptedNotification.fixture(token: token, alert: "older")
            let olderSequence = try await store.accept(older)
            try await store.accept(AcceptedNotification.fixture(token: token, id: older.id, alert: "newer"))
            try await store.record([
                DeliveryChange(notificationID: older.id, sequence: olderSequence, event: .acknowledged, newState: .delivered, atMilliseconds: 5)
            ])
            #expect(try await store.notification(older.id)?.state == .stored)
            #expect(try await store.trace(older.id).last?.kind == .acknowledged)
        }
    }

    @Test(
        "Tokens: register, duplicate, unregister once (the first time wins), lookup from another store after a change",
        arguments: StoreBackend.allCases
    )
    func tokens(_ backend: StoreBackend) async throws {
        try await withStoreLocation(backend) { location in
            let clock = ManualWallClock(milliseconds: 1_000)
            let first = try await location.open(clock: clock)
            let second = try await location.open(clock: clock)
            let token = DeviceToken.random()
            // The second store asks before the token exists: a miss, remembered for the refresh interval.
            #expect(try second.lookup(token) == nil)
            let record = try await first.registerToken(token, bundleID: Self.app, environment: .production, deviceID: nil)
            #expect(record.registeredAtMilliseconds == 1_000 && record.isActive && record.kind == .device)
            #expect(try first.lookup(token) == record)
            await #expect(throws: StoreError.duplicateDeviceToken) {
                try await first.registerToken(token, bundleID: Self.app, environment: .production, deviceID: nil)
            }
            clock.advance(seconds: 0.3)
            #expect(try second.lookup(token) == record)

            let gone = try await first.unregister(token, atMilliseconds: 5_000)
            #expect(gone.unregisteredAtMilliseconds == 5_000)
            #expect(try await first.unregister(token, atMilliseconds: 9_000).unregisteredAtMilliseconds == 5_000)
            await #expect(throws: StoreError.unknownDeviceToken) { try await first.unregister(DeviceToken.random(), atMilliseconds: 1) }
            #expect(try first.lookup(token)?.unregisteredAtMilliseconds == 5_000)
            // The other store sees it once its cache is older than the refresh interval.
            clock.advance(seconds: 0.3)
            #expect(try second.lookup(token)?.unregisteredAtMilliseconds == 5_000)
            let counts = try await second.counts()
            #expect(counts.deviceTokens == 1 && counts.activeDeviceTokens == 0)
            await first.shutdown()
            await second.shutdown()
        }
    }

    @Test(
        "Devices: credentials, authentication, listing; app tokens are stable per app and new after unregistering",
        arguments: StoreBackend.allCases
    )
    func devicesAndAppTokens(_ backend: StoreBackend) async throws {
        try await withStore(backend, clock: ManualWallClock(milliseconds: 7_000)) { store in
            let credentials = try await store.addDevice(name: "Anna's phone")
            let device = credentials.device
            #expect(device.createdAtMilliseconds == 7_000 && device.id == device.id.lowercased())
            #expect(try await store.authenticateDevice(id: device.id.uppercased(), secret: credentials.secret) == device)
            #expect(try await store.authenticateDevice(id: device.id, secret: credentials.secret.uppercased()) == nil)
            #expect(try await store.authenticateDevice(id: "nobody", secret: credentials.secret) == nil)
            await #expect(throws: StoreError.invalidRecord) { try await store.addDevice(name: "") }
            await #expect(throws: StoreError.invalidRecord) { try await store.addDevice(name: "two\nlines") }
            let other = try await store.addDevice(name: "tablet")
            #expect(try await store.devices().map(\.id) == [device.id, other.device.id])
            #expect(try await store.device(id: device.id.uppercased()) == device)

            let first = try await store.registerAppToken(deviceID: device.id, bundleID: Self.app, environment: .sandbox)
            #expect(first.isNew)
            let again = try await store.registerAppToken(deviceID: device.id, bundleID: Self.app, environment: .sandbox)
            #expect(!again.isNew && again.token == first.token)
            #expect(try await store.activeToken(deviceID: device.id, bundleID: Self.app, environment: .sandbox) == first.token)
            #expect(try await store.activeToken(deviceID: device.id, bundleID: Self.app, environment: .production) == nil)
            try await store.unregister(first.token.token, atMilliseconds: 8_000)
            let renewed = try await store.registerAppToken(deviceID: device.id, bundleID: Self.app, environment: .sandbox)
            #expect(renewed.isNew && renewed.token.token != first.token.token)
            #expect(try await store.tokens(deviceID: device.id).count == 2)
            await #expect(throws: StoreError.unknownDevice) {
                try await store.registerAppToken(deviceID: UUID().uuidString, bundleID: Self.app, environment: .sandbox)
            }

            // Concurrent registrations of one app agree on one token, exactly one of them new.
            let results = try await withThrowingTaskGroup(of: AppTokenRegistration.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.registerAppToken(deviceID: other.device.id, bundleID: Self.app, environment: .sandbox) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.token.token)).count == 1)
            #expect(results.filter(\.isNew).count == 1)

            // Notifications of every token the device was issued.
            try await store.accept(AcceptedNotification.fixture(token: first.token.token, alert: "old"))
            try await store.accept(AcceptedNotification.fixture(token: renewed.token.token, alert: "new"))
            #expect(try await store.listNotifications(deviceID: device.id.uppercased(), limit: 10).count == 2)
            #expect(try await store.listNotifications(deviceID: other.device.id, limit: 10).isEmpty)
        }
    }

    @Test(
        "Activity tokens: idempotent, a new push-to-start token retires the type's previous one, a limit per device",
        arguments: StoreBackend.allCases
    )
    func activityTokens(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let device = try await store.addDevice(name: "phone").device
            func request(_ kind: TokenKind, _ token: DeviceToken = .random(), type: String = "Score") -> ActivityTokenRequest {
                ActivityTokenRequest(deviceID: device.id, bundleID: Self.app, environment: .sandbox, kind: kind, token: token, activityType: type)
            }
            let start = request(.pushToStart)
            let registered = try await store.registerActivityToken(start, limit: 3)
            #expect(registered.isNew && registered.token.kind == .pushToStart && registered.token.activityType == "Score")
            #expect(try await !store.registerActivityToken(start, limit: 3).isNew)
            let rotated = try await store.registerActivityToken(request(.pushToStart), limit: 3)
            #expect(rotated.isNew)
            #expect(try store.lookup(start.token)?.isActive == false)
            _ = try await store.registerActivityToken(request(.activity), limit: 3)
            _ = try await store.registerActivityToken(request(.activity), limit: 3)
            await #expect(throws: StoreError.tooManyTokens) { try await store.registerActivityToken(request(.activity), limit: 3) }
            await #expect(throws: StoreError.duplicateDeviceToken) {
                try await store.registerActivityToken(request(.activity, start.token), limit: 10)
            }
            await #expect(throws: StoreError.invalidRecord) { try await store.registerActivityToken(request(.device), limit: 10) }
        }
    }

    @Test(
        "Web push subscriptions: one per device, origin and key (a new one retires the old); payloads up to 8192 bytes",
        arguments: StoreBackend.allCases
    )
    func webPushSubscriptions(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let device = try await store.addDevice(name: "mac").device
            let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"
            func subscription(key: String = key) -> ActivityTokenRequest {
                ActivityTokenRequest(
                    deviceID: device.id,
                    bundleID: "https://shop.example",
                    environment: .production,
                    kind: .webPush,
                    token: .random(),
                    activityType: key
                )
            }
            let first = subscription()
            let registered = try await store.registerActivityToken(first, limit: 8)
            #expect(registered.isNew && registered.token.kind == .webPush && registered.token.activityType == key)
            #expect(try store.lookup(first.token)?.kind == .webPush)
            let second = subscription()
            _ = try await store.registerActivityToken(second, limit: 8)
            #expect(try store.lookup(first.token)?.isActive == false)
            #expect(try store.lookup(second.token)?.isActive == true)
            // Another key is another subscription: the one for the first key stays.
            let otherKey = subscription(key: String(key.reversed()))
            _ = try await store.registerActivityToken(otherKey, limit: 8)
            #expect(try store.lookup(second.token)?.isActive == true)
            // A web push message's envelope is larger than APNs's 5120 bytes; the store takes up to 8192.
            var message = AcceptedNotification.fixture(token: second.token)
            message.bundleID = "https://shop.example"
            message.topic = "https://shop.example"
            message.environment = .production
            message.pushType = .webPush
            message.payload = Array(#"{"web_push_message":{"body":""#.utf8) + [UInt8](repeating: 0x41, count: 8000) + Array(#""}}"#.utf8)
            try await store.accept(message)
            #expect(try await store.notification(message.id)?.notification.payload == message.payload)
            var tooLarge = AcceptedNotification.fixture(token: second.token)
            tooLarge.payload = [UInt8](repeating: 0x20, count: 8193)
            await #expect(throws: StoreError.self) { try await store.accept(tooLarge) }
        }
    }

    @Test("Signing keys and apps: add, list, duplicate, remove; the hot-path lookups see them", arguments: StoreBackend.allCases)
    func keysAndApps(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let key = SigningKeyRecord(
                keyID: "ABC123DEFG",
                teamID: "TEAM123456",
                scope: .both,
                topics: [Self.app],
                publicKeyPEM: samplePublicKeyPEM,
                createdAtMilliseconds: 1
            )
            try await store.addSigningKey(key)
            await #expect(throws: StoreError.duplicateSigningKey) { try await store.addSigningKey(key) }
            #expect(try store.signingKey(keyID: "ABC123DEFG") == key)
            #expect(try store.signingKey(keyID: "NOPE") == nil)
            #expect(try await store.signingKeys() == [key])
            var bad = key
            bad.keyID = "has space"
            await #expect(throws: StoreError.invalidRecord) { try await store.addSigningKey(bad) }
            try await store.removeSigningKey(keyID: key.keyID)
            await #expect(throws: StoreError.unknownSigningKey) { try await store.removeSigningKey(keyID: key.keyID) }
            #expect(try store.signingKey(keyID: "ABC123DEFG") == nil)
            #expect(try await store.counts().signingKeys == 0)
            #expect(try store.appTeam(bundleID: Self.app) == nil)
        }
    }

    @Test("Channels: a limit per app, kept broadcasts replaced and forgotten, deleted channels gone", arguments: StoreBackend.allCases)
    func channels(_ backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let first = try #require(
                try await store.createChannel(bundleID: Self.app, environment: .sandbox, storagePolicy: 1, pushType: "LiveActivity", limit: 2)
            )
            _ = try await store.createChannel(bundleID: Self.app, environment: .sandbox, storagePolicy: 0, pushType: "LiveActivity", limit: 2)
            #expect(
                try await store.createChannel(bundleID: Self.app, environment: .sandbox, storagePolicy: 0, pushType: "LiveActivity", limit: 2) == nil
            )
            #expect(try await store.channels(bundleID: Self.app, environment: .sandbox).count == 2)
            #expect(try await store.channel(id: first.id, bundleID: Self.app, environment: .production) == nil)

            var message = ChannelMessage(
                channelID: first.id,
                bundleID: Self.app,
                environment: .sandbox,
                requestID: "r1",
                priority: 10,
                expiration: 2_000_000_000,
                acceptedAtMilliseconds: 5,
                payload: Array(#"{"aps":{}}"#.utf8)
            )
            #expect(try await store.keepChannelMessage(message, untilMilliseconds: 100))
            message.requestID = "r2"
            #expect(try await store.keepChannelMessage(message, untilMilliseconds: 200))
            let kept = try #require(try await store.channel(id: first.id, bundleID: Self.app, environment: .sandbox)?.keptMessage)
            #expect(kept.message == message && kept.untilMilliseconds == 200)
            #expect(try await store.allChannels(limit: 10).compactMap(\.keptMessage).count == 1)
            #expect(try await store.keepChannelMessage(message, untilMilliseconds: nil))
            #expect(try await store.channel(id: first.id, bundleID: Self.app, environment: .sandbox)?.keptMessage == nil)

            #expect(try await store.deleteChannel(id: first.id, bundleID: Self.app, environment: .sandbox))
            #expect(try await !store.deleteChannel(id: first.id, bundleID: Self.app, environment: .sandbox))
            #expect(try await !store.keepChannelMessage(message, untilMilliseconds: 300))
            #expect(try await store.allChannels(limit: 10).count == 1)
        }
    }

    @Test("Shutdown commits what is queued, then refuses work", arguments: StoreBackend.allCases)
    func shutdown(_ backend: StoreBackend) async throws {
        try await withStoreLocation(backend) { location in
            let store = try await location.open()
            let token = try await registeredToken(store)
            let notifications = (0..<20).map { AcceptedNotification.fixture(token: token, alert: "q\($0)") }
            let results = Mutex<[Result<Int64, StoreError>]>([])
            for notification in notifications {
                store.enqueue(notification) { result in results.withLock { $0.append(result) } }
            }
            await store.shutdown()
            #expect(results.withLock { $0.count } == 20)
            #expect(results.withLock { $0.allSatisfy { (try? $0.get()) != nil } })
            #expect(await enqueueAndWait(store, AcceptedNotification.fixture(token: token)) == .failure(.shutDown))
            await #expect(throws: StoreError.shutDown) { try await store.counts() }

            let reopened = try await location.open()
            #expect(try await reopened.pendingNotifications().count == 20)
            await reopened.shutdown()
        }
    }
}
