import HeraldCore

/// A channel-management or broadcast request the console sends through the gateway as a provider would
/// (docs/broadcast.md, docs/console.md).
public enum ConsoleChannelRequest: Sendable, Hashable {
    /// `POST /1/apps/<bundle>/channels`.
    case create(bundleID: String, storagePolicy: Int)
    /// `DELETE /1/apps/<bundle>/channels`.
    case delete(bundleID: String, channelID: String)
    /// `POST /4/broadcasts/apps/<bundle>`.
    case broadcast(bundleID: String, channelID: String, priority: Int, expiration: Int64, payload: [UInt8])
}

/// The gateway's answer to a console channel request.
public struct ConsoleChannelAnswer: Sendable, Hashable {
    /// The HTTP status (201 created, 204 deleted, 200 broadcast).
    public var status: Int
    /// The reason of a refusal.
    public var reason: String?
    /// `apns-request-id`.
    public var requestID: String?
    /// `apns-channel-id` of a created channel.
    public var channelID: String?

    /// Creates an answer.
    public init(status: Int, reason: String? = nil, requestID: String? = nil, channelID: String? = nil) {
        self.status = status
        self.reason = reason
        self.requestID = requestID
        self.channelID = channelID
    }
}

extension ConsolePushService {
    /// Sends a channel request through the gateway; a service that cannot answers `503`.
    public func channelRequest(_ request: ConsoleChannelRequest) async throws -> ConsoleChannelAnswer {
        throw WebError(status: 503, message: "this server does not manage channels from the console")
    }
}

extension ConsoleAPI {
    /// `POST /api/v1/console/channels` (`{bundleID, storagePolicy}`), `POST /api/v1/console/channels/delete`
    /// (`{bundleID, channel}`) and `POST /api/v1/console/broadcast` (`{bundleID, channel, priority, expiration,
    /// payload}`): the gateway's answer, `{status, reason, requestID, channelID}`.
    func channelRequest(_ kind: String, body: [UInt8]) async throws(WebError) -> WebResponse {
        let pushes = try available()
        let reader = try WebError.bodyReader(body)
        let context = WebError.badRequest("")
        func string(_ name: String) throws(WebError) -> String {
            guard let value = try? reader.string(name, context: context) else { throw .badRequest("\(name) must be a string") }
            return value
        }
        func integer(_ name: String, default value: Int64, in range: ClosedRange<Int64>) throws(WebError) -> Int64 {
            // Absent takes the default; null is not an integer.
            if case .null? = reader.object[name] { throw .badRequest("\(name) must be an integer") }
            let read: Int64?
            do {
                read = try reader.optionalInteger(name, context: context)
            } catch {
                throw .badRequest("\(name) must be an integer")
            }
            guard let given = read else { return value }
            guard range.contains(given) else { throw .badRequest("\(name) must be \(range.lowerBound) to \(range.upperBound)") }
            return given
        }
        let bundleID = try string("bundleID")
        guard Topic.isWellFormed(bundleID) else { throw .badRequest("bundleID must be 1 to 255 letters, digits, '.', '-' or '_'") }
        func channel() throws(WebError) -> String {
            let channel = try string("channel")
            guard ChannelID.isWellFormed(channel) else { throw .badRequest("channel must be a channel id: base64 of 1 to 48 bytes") }
            return channel
        }
        let request: ConsoleChannelRequest
        switch kind {
        case "create":
            request = .create(bundleID: bundleID, storagePolicy: Int(try integer("storagePolicy", default: 1, in: 0...1)))
        case "delete":
            request = .delete(bundleID: bundleID, channelID: try channel())
        default:
            guard let payload = try? reader.rawObject("payload", context: context) else { throw .badRequest("payload must be a JSON object") }
            request = .broadcast(
                bundleID: bundleID,
                channelID: try channel(),
                priority: Int(try integer("priority", default: 10, in: 0...10)),
                expiration: try integer("expiration", default: 0, in: 0...9_999_999_999),
                payload: payload
            )
        }
        let answer = try await askGateway { try await pushes.channelRequest(request) }
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("status", answer.status)
        writer.member("reason", answer.reason)
        writer.member("requestID", answer.requestID)
        writer.member("channelID", answer.channelID)
        writer.endObject()
        return .json(writer.bytes)
    }
}
