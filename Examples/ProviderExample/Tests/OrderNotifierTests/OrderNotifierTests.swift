import Foundation
import HeraldProviderClient
import HeraldTestTiers
import HeraldTesting
import Testing

// In the example package OrderNotifier is its own module; the Herald package compiles both folders into one
// test target (ProviderExampleTests), where there is nothing to import.
#if canImport(OrderNotifier)
import OrderNotifier
#endif

@Suite("OrderNotifier against Herald", .tier(.inProcess))
struct OrderNotifierTests {
    static let shop = "com.example.shop"

    @Test("A shipped order shows on the customer's phone with its title")
    func shippedOrderIsShown() async throws {
        try await withHeraldServer { server in
            let phone = try await server.addDevice(named: "Customer's iPhone", apps: [Self.shop])
            let client = try server.makeProviderClient()
            let notifier = OrderNotifier(client: client, topic: Self.shop)
            do {
                let apnsID = try await notifier.orderShipped("1042", to: phone.token(for: Self.shop))
                let shown = try await phone.expectNotification(titled: "Order 1042 has shipped", in: Self.shop, within: .seconds(5))
                #expect(shown.body == "It is on its way.")
                try await server.expectTrace(of: apnsID, contains: .displayed, within: .seconds(5))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("A discount offer that the phone never picked up in time is traced as expired")
    func staleOfferExpires() async throws {
        try await withHeraldServer { server in
            // A phone that is switched off: the offer waits on the server.
            let token = try await server.offlineToken(for: Self.shop)
            let client = try server.makeProviderClient()
            let notifier = OrderNotifier(client: client, topic: Self.shop)
            do {
                let apnsID = try await notifier.discountOffer("1042", to: token, validUntil: server.clock.now.addingTimeInterval(60))
                try await server.expectTrace(of: apnsID, contains: .stored, within: .seconds(5))
                // A minute later, without sleeping.
                server.clock.advance(by: .seconds(61))
                try await server.expectTrace(of: apnsID, endsIn: .expired, within: .seconds(5))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
