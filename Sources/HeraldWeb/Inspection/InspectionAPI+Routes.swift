import HeraldCore
import HeraldDelivery
import HeraldStore

extension InspectionAPI {
    /// The `limit` used when a request gives none.
    static let defaultLimit = 100
    /// The largest `limit` (and wait `count`) accepted.
    static let maximumLimit = 10_000
    /// How long a wait lasts when the request gives no `timeoutMs`.
    static let defaultWaitMilliseconds = 5_000
    /// The longest wait one request may ask for: a test that needs longer asks again.
    static let maximumWaitMilliseconds = 30_000
    /// The shortest time between two looks at the store during a wait: a burst of events costs one query.
    static let waitRecheckInterval = Duration.milliseconds(25)
    /// The longest time between two looks at the store during a wait.
    static let waitIdleRecheckInterval = Duration.milliseconds(250)

    func listDevices() async throws -> WebResponse {
        let devices = try await store.devices()
        let nodes = try await cluster?.deviceNodes(deviceID: nil)
        let shared = try await screens?.sharedScreenTimes(deviceID: nil)
        var writer = JSONTextWriter(capacity: 256 * devices.count + 16)
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for device in devices {
            InspectionJSON.write(
                device,
                tokens: try await store.tokens(deviceID: device.id),
                online: engine.isOnline(deviceID: device.id),
                screenAt: screenAt(device.id, shared: shared),
                nodes: nodes.map { $0[device.id] ?? [] },
                into: &writer
            )
        }
        writer.endArray()
        writer.endObject()
        return .json(writer.bytes)
    }

    func device(id: String) async throws -> WebResponse {
        guard let device = try await store.device(id: id) else { throw WebError.notFound("no device \(id)") }
        let nodes = try await cluster?.deviceNodes(deviceID: device.id)
        let shared = try await screens?.sharedScreenTimes(deviceID: device.id)
        var writer = JSONTextWriter()
        InspectionJSON.write(
            device,
            tokens: try await store.tokens(deviceID: id),
            online: engine.isOnline(deviceID: id),
            screenAt: screenAt(id, shared: shared),
            nodes: nodes.map { $0[device.id] ?? [] },
            into: &writer
        )
        return .json(writer.bytes)
    }

    func deviceNotifications(id: String, request: WebRequest) async throws -> WebResponse {
        let limit = try Self.limit(request)
        guard try await store.device(id: id) != nil else { throw WebError.notFound("no device \(id)") }
        return Self.notificationList(try await store.listNotifications(deviceID: id, limit: limit))
    }

    func listNotifications(request: WebRequest) async throws -> WebResponse {
        let limit = try Self.limit(request)
        let token = try Self.token(request)
        let filter = try NotificationFilter(request)
        guard !filter.isEmpty else {
            return Self.notificationList(try await store.listNotifications(token: token, limit: limit))
        }
        return Self.notificationList(Array(try await matching(token: token, filter).prefix(limit)))
    }

    /// The notifications that pass the filters, newest first: the filters look at the newest notifications the store
    /// lists (up to its maximum, of the token when given).
    private func matching(token: DeviceToken?, _ filter: NotificationFilter) async throws -> [StoredNotification] {
        try await store.listNotifications(token: token, limit: Self.maximumLimit).filter(filter.matches)
    }

    /// `GET /api/v1/notifications/wait`: answers as soon as `count` notifications pass the filters of
    /// `GET /api/v1/notifications` (with `state`: have reached that state), with them; `408` when `timeoutMs` passes
    /// first, saying how many did.
    ///
    /// Why no busy polling: the store is asked again when the console's event log has a new event (every trace event
    /// the engine records), at most every ``waitRecheckInterval``, and at least every ``waitIdleRecheckInterval``
    /// (events the log does not carry, such as a replacement at commit time).
    func waitForNotifications(request: WebRequest) async throws -> WebResponse {
        let limit = try Self.limit(request)
        let token = try Self.token(request)
        let filter = try NotificationFilter(request)
        let count = try Self.integer(request, "count", default: 1, in: 1...Self.maximumLimit)
        let timeout = try Self.integer(request, "timeoutMs", default: Self.defaultWaitMilliseconds, in: 0...Self.maximumWaitMilliseconds)
        guard waits.enter() else {
            throw WebError(status: 503, message: "\(waits.limit) waits are in progress; wait for one to end")
        }
        defer { waits.leave() }
        let deadline = ContinuousClock.now + .milliseconds(timeout)
        let events = screens?.events
        while true {
            let seen = events?.lastSequence ?? 0
            let matched = try await matching(token: token, filter)
            if matched.count >= count { return Self.notificationList(Array(matched.prefix(limit))) }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                var writer = JSONTextWriter()
                writer.beginObject()
                writer.member("error", "\(matched.count) of \(count) notifications matched within \(timeout) ms")
                writer.member("matched", Int64(matched.count))
                writer.member("count", Int64(count))
                writer.endObject()
                return .json(status: 408, writer.bytes)
            }
            let slice = min(left, Self.waitIdleRecheckInterval)
            if let events {
                _ = await events.waitForEvents(after: seen, timeout: slice)
                try await Task.sleep(for: min(Self.waitRecheckInterval, max(.zero, deadline - ContinuousClock.now)))
            } else {
                try await Task.sleep(for: slice)
            }
        }
    }

    func notification(apnsID: String) async throws -> WebResponse {
        let id = try Self.notificationID(apnsID)
        guard let stored = try await store.notification(id) else { throw WebError.notFound("no notification \(apnsID)") }
        let trace = try await trace(of: id)
        var writer = JSONTextWriter(capacity: 512 + stored.notification.payload.count)
        InspectionJSON.write(stored, trace: trace, into: &writer)
        return .json(writer.bytes)
    }

    func trace(apnsID: String) async throws -> WebResponse {
        let id = try Self.notificationID(apnsID)
        let stored = try await store.notification(id)
        let trace = try await trace(of: id)
        guard stored != nil || !trace.isEmpty else { throw WebError.notFound("no notification \(apnsID)") }
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("apnsID", stored?.notification.id.text ?? id.text)
        InspectionJSON.write(trace: trace, into: &writer)
        writer.endObject()
        return .json(writer.bytes)
    }

    private static func notificationList(_ notifications: [StoredNotification]) -> WebResponse {
        var writer = JSONTextWriter(capacity: 512 * notifications.count + 32)
        writer.beginObject()
        writer.key("notifications")
        writer.beginArray()
        for stored in notifications { InspectionJSON.write(stored, trace: nil, into: &writer) }
        writer.endArray()
        writer.endObject()
        return .json(writer.bytes)
    }

    static func limit(_ request: WebRequest) throws(WebError) -> Int {
        try integer(request, "limit", default: defaultLimit, in: 1...maximumLimit)
    }

    /// The query's integer `name`, or `default` when absent; `400` when it is not an integer in `range`.
    private static func integer(_ request: WebRequest, _ name: String, default: Int, in range: ClosedRange<Int>) throws(WebError) -> Int {
        guard let text = request.queryValue(name) else { return `default` }
        guard let value = Int(text), range.contains(value) else {
            throw WebError.badRequest("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The query's `token`, if any; `400` when it is not a device token.
    private static func token(_ request: WebRequest) throws(WebError) -> DeviceToken? {
        guard let text = request.queryValue("token") else { return nil }
        guard let token = DeviceToken(hex: text) else { throw WebError.badRequest("token must be a device token in hex") }
        return token
    }

    private static func notificationID(_ text: String) throws(WebError) -> NotificationID {
        guard let id = NotificationID(text) else { throw WebError.badRequest("\(text) is not an apns-id (a UUID)") }
        return id
    }
}
