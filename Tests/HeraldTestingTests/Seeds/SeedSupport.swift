import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTesting
import HeraldUserNotifications
import Testing

/// A provider of the seeds: sends a payload over HTTP/2 (TLS, JWT) with the headers the seed's backend sets,
/// and expects 200 with an apns-id.
struct SeedProvider {
    let client: APNSProviderClient
    let topic: String

    /// Sends `payload` (JSON text, exactly these bytes) and returns the apns-id.
    @discardableResult
    func send(
        _ payload: String,
        to token: String,
        pushType: PushType = .alert,
        priority: APNSPriority? = nil,
        collapseID: String? = nil
    ) async throws -> String {
        let request = APNSRequest(
            deviceToken: token,
            payload: Array(payload.utf8),
            topic: topic,
            pushType: pushType,
            priority: priority ?? (pushType == .background ? .powerConsiderate : .immediate),
            collapseID: collapseID
        )
        let response = try await client.send(request)
        try #require(response.status == 200, "the gateway refused the push: \(String(describing: response.reason))")
        return try #require(response.apnsID)
    }
}

/// Runs a seed's scenario: a server, one device with the manifest, a provider for `topic`.
func withSeed(
    manifest json: String,
    topic: String,
    clock: any NotificationClock = SystemNotificationClock(),
    code: InProcessCode = InProcessCode(),
    _ body: (HeraldTestServer, TestDevice, SeedProvider) async throws -> Void
) async throws {
    try await withHeraldServer { server in
        let device = try await server.addDevice(manifest: DeviceManifest(json: Data(json.utf8)), code: code, clock: clock)
        try await server.withProviderClient { client in
            try await body(server, device, SeedProvider(client: client, topic: topic))
        }
    }
}

extension HeraldTestServer {
    /// Waits until the device acknowledged the notification (`delivered`) and its trace holds each of `kinds`
    /// (the device's reports), and returns the trace.
    @discardableResult
    func expectDelivered(_ apnsID: String, reporting kinds: [TraceEventKind], within timeout: Duration = .seconds(10)) async throws -> [TraceEvent] {
        try await expectState(of: apnsID, is: .delivered, within: timeout)
        var trace: [TraceEvent] = []
        for kind in kinds {
            trace = try await expectTrace(of: apnsID, contains: kind, within: timeout)
        }
        #expect(trace.first?.kind == .accepted)
        return trace
    }
}

extension Array where Element == TraceEvent {
    /// The trace's device reports (what came from the device), in order.
    var reportKinds: [String] { filter { TraceEventKind.deviceReports.contains($0.kind) }.map(\.kind.rawValue) }
}

/// The request identifier of a notification sent without a collapse id: its apns-id as the device writes it.
func requestIdentifier(_ apnsID: String) -> String {
    NotificationID(apnsID)?.text ?? apnsID
}
