import Foundation
import HeraldCore
import HeraldProviderClient

/// A provider's own push code: it tells a shop's customers about their orders through APNs.
///
/// It knows nothing of Herald: in production its client points at Apple, in tests at a Herald test server.
public struct OrderNotifier: Sendable {
    /// The APNs client it sends with.
    public let client: APNSProviderClient
    /// The shop app's bundle id (the `apns-topic`).
    public let topic: String

    /// Creates a notifier sending to `topic` with `client`.
    public init(client: APNSProviderClient, topic: String) {
        self.client = client
        self.topic = topic
    }

    /// Tells the customer an order has shipped; returns the notification's `apns-id`.
    public func orderShipped(_ order: String, to deviceToken: String) async throws -> String {
        try await send(title: "Order \(order) has shipped", body: "It is on its way.", order: order, to: deviceToken)
    }

    /// Offers a discount on an order that is only worth showing before `deadline`; returns the `apns-id`.
    public func discountOffer(_ order: String, to deviceToken: String, validUntil deadline: Date) async throws -> String {
        try await send(
            title: "10% off order \(order)",
            body: "A limited offer.",
            order: order,
            to: deviceToken,
            expiration: Int64(deadline.timeIntervalSince1970)
        )
    }

    private func send(title: String, body: String, order: String, to deviceToken: String, expiration: Int64? = nil) async throws -> String {
        let payload: [String: Any] = ["aps": ["alert": ["title": title, "body": body]], "order": order]
        let request = APNSRequest(
            deviceToken: deviceToken,
            payload: Array(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])),
            topic: topic,
            pushType: .alert,
            priority: .immediate,
            expiration: expiration
        )
        let response = try await client.send(request)
        guard response.isAccepted, let apnsID = response.apnsID else {
            throw OrderNotifierError(status: response.status, reason: response.reason?.rawValue)
        }
        return apnsID
    }
}

/// APNs refused a notification.
public struct OrderNotifierError: Error, Sendable {
    /// The HTTP status.
    public var status: Int
    /// The APNs reason, such as `BadDeviceToken`.
    public var reason: String?
}
