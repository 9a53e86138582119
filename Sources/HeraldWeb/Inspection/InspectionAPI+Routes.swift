import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import HeraldStore

extension InspectionAPI {
    /// The `limit` used when a request gives none.
    static let defaultLimit = 100
    /// The largest `limit` accepted.
    static let maximumLimit = 10_000

    func listDevices() async throws -> WebResponse {
        let devices = try await store.devices()
        var writer = JSONTextWriter(capacity: 256 * devices.count + 16)
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for device in devices {
            InspectionJSON.write(
                device,
                tokens: try await store.tokens(deviceID: device.id),
                online: engine.isOnline(deviceID: device.id),
                screenAt: screenAt(device.id),
                into: &writer
            )
        }
        writer.endArray()
        writer.endObject()
        return .json(writer.bytes)
    }

    func device(id: String) async throws -> WebResponse {
        guard let device = try await store.device(id: id) else { throw WebError.notFound("no device \(id)") }
        var writer = JSONTextWriter()
        InspectionJSON.write(
            device,
            tokens: try await store.tokens(deviceID: id),
            online: engine.isOnline(deviceID: id),
            screenAt: screenAt(id),
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
        var token: DeviceToken?
        if let text = request.queryValue("token") {
            guard let parsed = DeviceToken(hex: text) else { throw WebError.badRequest("token must be a device token in hex") }
            token = parsed
        }
        let filter = try NotificationFilter(request)
        guard !filter.isEmpty else {
            return Self.notificationList(try await store.listNotifications(token: token, limit: limit))
        }
        // The filters look at the newest notifications the store lists (up to its maximum), then keep `limit`.
        let newest = try await store.listNotifications(token: token, limit: Self.maximumLimit)
        return Self.notificationList(Array(newest.lazy.filter(filter.matches).prefix(limit)))
    }

    func notification(apnsID: String) async throws -> WebResponse {
        let id = try Self.notificationID(apnsID)
        guard let stored = try await store.notification(id) else { throw WebError.notFound("no notification \(apnsID)") }
        let trace = try await store.trace(id)
        var writer = JSONTextWriter(capacity: 512 + stored.notification.payload.count)
        InspectionJSON.write(stored, trace: trace, into: &writer)
        return .json(writer.bytes)
    }

    func trace(apnsID: String) async throws -> WebResponse {
        let id = try Self.notificationID(apnsID)
        let stored = try await store.notification(id)
        let trace = try await store.trace(id)
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

    private static func limit(_ request: WebRequest) throws(WebError) -> Int {
        guard let text = request.queryValue("limit") else { return defaultLimit }
        guard let limit = Int(text), (1...maximumLimit).contains(limit) else {
            throw WebError.badRequest("limit must be an integer from 1 to \(maximumLimit)")
        }
        return limit
    }

    private static func notificationID(_ text: String) throws(WebError) -> NotificationID {
        guard let id = NotificationID(text) else { throw WebError.badRequest("\(text) is not an apns-id (a UUID)") }
        return id
    }
}
