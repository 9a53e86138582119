import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldSimulator
import HeraldTestTiers
import HeraldTesting
import Testing

#if canImport(OrderNotifier)
import OrderNotifier
#endif

@Suite("ScoreBroadcaster against Herald", .tier(.inProcess))
struct ScoreBroadcasterTests {
    static let app = "com.example.sports"

    /// A fan's phone: the sports app declares the match activity (its attributes and content state).
    static func phone(_ name: String) -> DeviceManifest {
        DeviceManifest(
            name: name,
            apps: [
                AppManifest(
                    bundleID: app,
                    activities: [ActivityTypeManifest(name: "MatchAttributes", attributes: ["match"], contentState: ["score", "minute"])]
                )
            ]
        )
    }

    @Test("One broadcast puts the score on every fan's lock screen; the final whistle takes the activity away")
    func scoresReachEveryFan() async throws {
        try await withHeraldServer { server in
            let fans = [
                try await server.addDevice(manifest: Self.phone("Ana's iPhone")), try await server.addDevice(manifest: Self.phone("Ben's iPhone")),
            ]
            let client = try server.makeProviderClient()
            let broadcaster = ScoreBroadcaster(client: client, bundleID: Self.app)
            do {
                let channel = try await broadcaster.openMatch()
                for fan in fans {
                    let token = try await fan.pushToStartToken(for: Self.app, type: "MatchAttributes")
                    try await broadcaster.follow("Lyon – Nantes", channel: channel, pushToStartToken: token, now: server.clock.now)
                    try await fan.expectChannelSubscription(channel, in: Self.app)
                }
                try await broadcaster.score("1-0", minute: 12, channel: channel, now: server.clock.now.addingTimeInterval(1))
                for fan in fans {
                    let shown = try await fan.expectActivity(in: Self.app, contentState: "score", equals: .string("1-0"))
                    #expect(shown.typeName == "MatchAttributes")
                    #expect(shown.attributes.contains("Lyon"))
                }
                try await broadcaster.finalWhistle("2-1", channel: channel, now: server.clock.now.addingTimeInterval(2))
                for fan in fans { try await fan.expectNoActivity(in: Self.app) }
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
