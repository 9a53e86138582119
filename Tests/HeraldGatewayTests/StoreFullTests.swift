import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldGateway

/// A store without room (its disk budget used up, or the disk full): providers get `503 ServiceUnavailable`, not `500`.
@Suite("Provider API when the store is full", .serialized, .tier(.inProcess))
struct StoreFullTests {
    @Test("a commit refused for lack of room or queue space is ServiceUnavailable; any other failure InternalServerError")
    func reasons() {
        #expect(ProviderRequestProcessor.reason(forCommitFailure: StoreError.storeFull.with(detail: "disk full")) == .serviceUnavailable)
        #expect(ProviderRequestProcessor.reason(forCommitFailure: StoreError.overloaded) == .serviceUnavailable)
        #expect(ProviderRequestProcessor.reason(forCommitFailure: StoreError.database) == .internalServerError)
        #expect(ProviderRequestProcessor.reason(forCommitFailure: CancellationError()) == .internalServerError)
        #expect(APNSReason.serviceUnavailable.status == 503)
    }

    @Test("a push to a store at its budget is answered 503 ServiceUnavailable over HTTP/2 and HTTP/1.1, and nothing is stored")
    func budgetReached() async throws {
        // A budget of one byte: the schema alone is over it, so the first batch is refused.
        let fixture = try await GatewayFixture.start(store: { $0.maximumStoreBytes = 1 })
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        await client.close()
        #expect(response.status == 503)
        #expect(response.reason == "ServiceUnavailable")

        let request = HTTP1TestExchange.request(
            path: "/3/device/\(token.hex)",
            headers: fixture.alertHeaders(),
            body: GatewayFixture.alertBody,
            close: true
        )
        let responses = try await HTTP1TestExchange.exchange(request, port: try await fixture.port(tls: false), group: fixture.clientGroup)
        #expect(responses.first?.statusLine.hasPrefix("HTTP/1.1 503") == true)
        #expect(responses.first?.reason == "ServiceUnavailable")
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).isEmpty)
        await fixture.stop()
    }
}
