import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator
import Synchronization

/// Sends the device's `screen` on one link: after each request, one snapshot taken after it, sent in order.
///
/// Requests that come while a screen is being taken and sent are coalesced into the next one, so a burst of
/// changes costs at most two screens. ``requestAndWait()`` returns once a screen taken after the call is written,
/// which is how an `interacted` follows the screen that shows the interaction's effect.
final class ScreenSender: Sendable {
    private struct Progress {
        var requested: UInt64 = 0
        var sent: UInt64 = 0
        var waiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        var finished = false
    }

    private let device: SimulatedDevice
    private let client: DeviceLinkClient
    private let tokens: @Sendable () -> [String: DeviceToken]
    private let webApps: [WebApp]
    private let triggers: AsyncStream<Void>
    private let input: AsyncStream<Void>.Continuation
    private let progress = Mutex(Progress())

    /// A sender for `device` on `client`; `tokens` are the tokens the server issued, by bundle id, which the screen
    /// shows instead of the simulated device's own (the ones providers send to). The `webApps` are on the screen too.
    init(
        device: SimulatedDevice,
        client: DeviceLinkClient,
        webApps: [WebApp] = [],
        tokens: @escaping @Sendable () -> [String: DeviceToken]
    ) {
        self.device = device
        self.client = client
        self.webApps = webApps
        self.tokens = tokens
        (triggers, input) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a fresh screen; returns the request's number.
    @discardableResult
    func request() -> UInt64 {
        let number = progress.withLock { progress in
            progress.requested += 1
            return progress.requested
        }
        input.yield()
        return number
    }

    /// Asks for a fresh screen and waits until it is written (or the link ended).
    func requestAndWait() async {
        let number = request()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = progress.withLock { progress -> Bool in
                if progress.finished || progress.sent >= number { return true }
                progress.waiters.append((number, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Takes and sends screens until ``finish()``.
    func run() async {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        for await _ in triggers {
            let number = progress.withLock { $0.requested }
            var snapshot = await device.snapshot()
            let issued = tokens()
            for index in snapshot.apps.indices {
                if let token = issued[snapshot.apps[index].bundleID] { snapshot.apps[index].deviceToken = token.hex }
            }
            var webAppScreens: [JSONValue] = []
            for app in webApps { webAppScreens.append(await app.screen()) }
            if let json = Self.screenJSON(snapshot, encoder: encoder, webApps: webAppScreens) {
                try? await client.send(.screen(json: Array(json)))
            }
            let ready = progress.withLock { progress in
                progress.sent = max(progress.sent, number)
                let ready = progress.waiters.filter { $0.target <= number }.map(\.continuation)
                progress.waiters.removeAll { $0.target <= number }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
        let rest = progress.withLock { progress in
            progress.finished = true
            defer { progress.waiters = [] }
            return progress.waiters.map(\.continuation)
        }
        for continuation in rest { continuation.resume() }
    }

    /// Ends ``run()`` (the link closed); waiters are released.
    func finish() {
        input.finish()
    }
}

extension ScreenSender {
    /// The screen as JSON within the link's limit: with the attachments' thumbnails when they fit, without them
    /// otherwise; nil when even that is too large (the server then keeps the previous screen).
    ///
    /// The device's web apps, when it has any, are the member `webApps` beside the snapshot's own: one object each
    /// (``WebApp/screen()``: origin, kind, subscription, badge, notifications). A member the snapshot does not have,
    /// so that the server's check of a screen and the console, which read the snapshot, are unchanged.
    static func screenJSON(
        _ snapshot: DeviceSnapshot,
        encoder: JSONEncoder,
        webApps: [JSONValue] = [],
        limit: Int = DeviceLinkClientMessage.maximumScreenSize
    ) -> Data? {
        let tail = webApps.isEmpty ? [] : Array(",\"webApps\":".utf8) + JSONValue.array(webApps).jsonBytes()
        func fits(_ snapshot: DeviceSnapshot) -> Data? {
            guard var json = try? encoder.encode(snapshot), json.last == UInt8(ascii: "}") else { return nil }
            json.insert(contentsOf: tail, at: json.count - 1)
            // 32 bytes for the message's envelope around the snapshot.
            return json.count + 32 <= limit ? json : nil
        }
        if let json = fits(snapshot) { return json }
        var bare = snapshot
        for index in bare.apps.indices { bare.apps[index].center = bare.apps[index].center.withoutThumbnails() }
        return fits(bare)
    }
}
