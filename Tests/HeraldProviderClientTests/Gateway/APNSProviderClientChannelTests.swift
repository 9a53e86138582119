import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// `APNSProviderClient`'s channel-management and broadcast requests against a live in-process gateway (tier 3).
@Suite("APNSProviderClient: channels and broadcasts against the gateway", .serialized, .tier(.inProcess))
struct APNSProviderClientChannelTests {
    static let bundleID = GatewayFixture.topic
    static let update = Array(#"{"aps": {"event": "update", "timestamp": 1700000000, "content-state": {"minutes": 5}}}"#.utf8)

    @Test("create, read, list, broadcast and delete over TLS and h2c: each answer's status, ids and body", arguments: [true, false])
    func lifecycle(tls: Bool) async throws {
        try await withGateway { fixture in
            let client = try await APNSProviderClientTests.client(fixture, tls: tls)
            let requestID = "0f4c2a36-1b2d-4c8e-9a0b-123456789abc"
            let created = try await client.createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored, requestID: requestID)
            #expect(created.status == 201 && created.isSuccess && created.reason == nil, "\(created)")
            #expect(created.requestID == requestID)
            let channelID = try #require(created.channelID)
            #expect(Data(base64Encoded: channelID)?.count == 16)
            #expect(created.body.isEmpty && created.latency > .zero)

            let read = try await client.channel(bundleID: Self.bundleID, channelID: channelID)
            #expect(read.status == 200 && read.channelID == channelID && isUUID(read.requestID), "\(read)")
            #expect(read.configuration == APNSChannelConfiguration(storagePolicy: .noMessageStored, pushType: "LiveActivity"))

            let stored = try #require(try await client.createChannel(bundleID: Self.bundleID).channelID)
            let listed = try await client.allChannels(bundleID: Self.bundleID)
            #expect(listed.status == 200 && isUUID(listed.requestID))
            // Oldest first, then by id: the fixture's clock stands still.
            #expect(listed.channelIDs == [channelID, stored].sorted())
            #expect(try await client.channel(bundleID: Self.bundleID, channelID: stored).configuration?.storagePolicy == .mostRecentMessageStored)

            let broadcast = try await client.broadcast(APNSBroadcastRequest(bundleID: Self.bundleID, channelID: channelID, payload: Self.update))
            #expect(broadcast.status == 200 && broadcast.reason == nil, "\(broadcast)")
            #expect(isUUID(broadcast.requestID) && isUUID(broadcast.uniqueID))
            let kept = APNSBroadcastRequest(bundleID: Self.bundleID, channelID: stored, payload: Self.update, expiration: 1_900_000_000)
            #expect(try await client.broadcast(kept).status == 200)

            let deleted = try await client.deleteChannel(bundleID: Self.bundleID, channelID: channelID)
            #expect(deleted.status == 204 && deleted.body.isEmpty && isUUID(deleted.requestID), "\(deleted)")
            #expect(try await client.allChannels(bundleID: Self.bundleID).channelIDs == [stored])
            #expect(try await fixture.store.channels(bundleID: Self.bundleID, environment: fixture.environment).map(\.id) == [stored])
            await client.shutdown()
        }
    }

    @Test("refusals are answers: ChannelNotRegistered, BadChannelId, BadExpirationDate, BadPriority, BadRequestParams, with apns-request-id")
    func refusals() async throws {
        try await withGateway { fixture in
            let client = try await APNSProviderClientTests.client(fixture, tls: false)
            let unknown = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let noStorage = try #require(try await client.createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored).channelID)
            let answers: [(APNSChannelResponse, Int, APNSReason)] = [
                (try await client.channel(bundleID: Self.bundleID, channelID: unknown), 400, .channelNotRegistered),
                (try await client.deleteChannel(bundleID: Self.bundleID, channelID: unknown), 400, .channelNotRegistered),
                (try await client.channel(bundleID: Self.bundleID, channelID: "not base64!"), 400, .badChannelId),
                (try await client.deleteChannel(bundleID: Self.bundleID, channelID: "!!!!"), 400, .badChannelId),
                (try await client.broadcast(.init(bundleID: Self.bundleID, channelID: unknown, payload: Self.update)), 400, .channelNotRegistered),
                (try await client.broadcast(.init(bundleID: Self.bundleID, channelID: "%%%", payload: Self.update)), 400, .badChannelId),
                (
                    try await client.broadcast(.init(bundleID: Self.bundleID, channelID: noStorage, payload: Self.update, expiration: 1_900_000_000)),
                    400, .badExpirationDate
                ),
                (
                    try await client.broadcast(.init(bundleID: Self.bundleID, channelID: noStorage, payload: Self.update, priority: nil)), 400,
                    .badPriority
                ),
                (
                    try await client.createChannel(bundleID: Self.bundleID, storagePolicy: APNSMessageStoragePolicy(rawValue: 2)), 400,
                    .badRequestParams
                ),
            ]
            for (answer, status, reason) in answers {
                #expect(answer.status == status && answer.reason == reason && !answer.isSuccess, "\(reason): \(answer)")
                #expect(isUUID(answer.requestID), "\(reason)")
                #expect(answer.configuration == nil && answer.channelIDs == nil, "\(reason)")
            }
            await client.shutdown()
        }
    }

    @Test("a bundle id or header value that cannot travel is refused before sending")
    func invalidRequests() async throws {
        try await withGateway { fixture in
            let client = try await APNSProviderClientTests.client(fixture, tls: false)
            await #expect(throws: APNSProviderClientError.invalidRequest) { try await client.allChannels(bundleID: "com.example/app") }
            await #expect(throws: APNSProviderClientError.invalidRequest) { try await client.channel(bundleID: Self.bundleID, channelID: "a\r\nb") }
            // Nothing was sent: the app still has no channel and the client still works.
            #expect(try await client.allChannels(bundleID: Self.bundleID).channelIDs == [])
            await client.shutdown()
        }
    }

    @Test("a list longer than a push's answer limit (16 KiB) arrives whole")
    func longList() async throws {
        try await withGateway { fixture in
            var expected: [String] = []
            for _ in 0..<800 {
                let channel = try await fixture.store.createChannel(
                    bundleID: Self.bundleID,
                    environment: fixture.environment,
                    storagePolicy: 1,
                    pushType: "LiveActivity",
                    limit: 10_000
                )
                expected.append(try #require(channel).id)
            }
            let client = try await APNSProviderClientTests.client(fixture, tls: false)
            let listed = try await client.allChannels(bundleID: Self.bundleID)
            #expect(listed.body.count > 16 * 1024)
            // Oldest first, then by id: the fixture's clock stands still.
            #expect(listed.channelIDs == expected.sorted())
            await client.shutdown()
        }
    }
}
