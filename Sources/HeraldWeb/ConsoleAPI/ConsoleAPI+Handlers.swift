import HeraldCore
import HeraldDelivery
import HeraldDeviceLink

extension ConsoleAPI {
    /// `GET /api/v1/devices/{id}/screen`: `{deviceID, online, updatedAt, screen}`.
    func screen(deviceID: String) async throws(WebError) -> WebResponse {
        let current: (screen: ConsoleHub.Screen?, online: Bool)
        do {
            current = try await hub.currentScreen(deviceID: deviceID)
        } catch {
            throw WebError(status: 503, message: "the store did not answer: \(error)")
        }
        guard let screen = current.screen else {
            throw WebError(status: 404, message: "device \(deviceID) has not sent a screen (unknown, or never connected)")
        }
        var writer = JSONTextWriter(capacity: 128 + screen.json.count)
        writer.beginObject()
        writer.member("deviceID", deviceID)
        writer.member("online", current.online)
        writer.member("updatedAt", screen.updatedAtMilliseconds)
        writer.key("screen")
        writer.rawValue(screen.json)
        writer.endObject()
        return .json(writer.bytes)
    }

    /// `POST /api/v1/devices/{id}/interactions`: forwards an `interact` and waits for the device's answer.
    func interact(deviceID: String, body: [UInt8]) async throws(WebError) -> WebResponse {
        let request = try Self.interaction(body)
        let outcome = await hub.interact(deviceID: deviceID, timeout: configuration.interactionTimeout) { id in
            var interaction = request
            interaction.id = id
            return interaction
        }
        switch outcome {
        case .done:
            var writer = JSONTextWriter()
            writer.beginObject()
            writer.member("ok", true)
            writer.endObject()
            return .json(writer.bytes)
        // 409 like an offline device: the device's state, not the request's form, stands in the way.
        case .refused(let message): throw WebError(status: 409, message: message)
        case .offline: throw WebError(status: 409, message: "device \(deviceID) is offline")
        case .timedOut:
            throw WebError(status: 504, message: "device \(deviceID) did not answer within \(configuration.interactionTimeout)")
        case .unreachable(let message): throw WebError(status: 502, message: message)
        }
    }

    /// Reads an interaction body: the members of `interact` without `type` and `id`, checked for what its kind needs.
    static func interaction(_ body: [UInt8]) throws(WebError) -> DeviceLinkInteraction {
        let reader = try WebError.bodyReader(body)
        let context = DeviceLinkError(code: .malformedFrame, message: "")
        let interaction: DeviceLinkInteraction
        do throws(DeviceLinkError) {
            interaction = try DeviceLinkInteraction(reading: reader, id: "", context: context)
        } catch {
            throw .badRequest(error.message)
        }
        let kind = interaction.kind
        guard kind.isKnown else {
            let known = DeviceLinkInteraction.Kind.allKnown.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("unknown kind \"\(kind)\"; known: \(known)")
        }
        if [.tap, .action, .dismiss, .expand].contains(kind), interaction.identifier == nil {
            throw .badRequest("\"\(kind)\" needs \"identifier\" (the notification request identifier)")
        }
        if kind == .action, interaction.action == nil { throw .badRequest("\"action\" needs \"action\" (the action identifier)") }
        if kind == .setState, interaction.state == nil { throw .badRequest("\"setState\" needs \"state\"") }
        return interaction
    }

    /// `POST /api/v1/console/validate`: `{"valid":true}` or the gateway's reason.
    func validate(body: [UInt8]) async throws(WebError) -> WebResponse {
        let pushes = try available()
        let push = try ConsolePush(json: body)
        var writer = JSONTextWriter()
        writer.beginObject()
        if let rejection = await pushes.validate(push) {
            writer.member("valid", false)
            writer.member("status", rejection.reason.status)
            writer.member("reason", rejection.reason.rawValue)
            writer.member("message", rejection.message)
        } else {
            writer.member("valid", true)
        }
        writer.endObject()
        return .json(writer.bytes)
    }

    /// `POST /api/v1/console/send`: the gateway's answer, `{status, apnsID, reason, timestamp}`.
    func send(body: [UInt8]) async throws(WebError) -> WebResponse {
        let pushes = try available()
        let push = try ConsolePush(json: body)
        let answer = try await askGateway { try await pushes.send(push) }
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("status", answer.status)
        writer.member("apnsID", answer.apnsID)
        writer.member("reason", answer.reason)
        writer.member("timestamp", answer.timestamp)
        writer.endObject()
        return .json(writer.bytes)
    }

    /// Runs a request the console sends to the gateway (a push, a channel request): no answer is `502`.
    func askGateway<Answer: Sendable>(_ request: () async throws -> Answer) async throws(WebError) -> Answer {
        do {
            return try await request()
        } catch let error as WebError {
            throw error
        } catch {
            throw WebError(status: 502, message: "the gateway did not answer: \(error)")
        }
    }

    func available() throws(WebError) -> any ConsolePushService {
        guard let pushes else { throw WebError(status: 503, message: "this server does not send from the console") }
        return pushes
    }

    /// `GET /api/v1/events?after=`: the events after `after`, waiting for one when there are none yet.
    func events(request: WebRequest) async throws(WebError) -> WebResponse {
        hub.readerArrived()
        let page: (events: [ConsoleEvent], next: UInt64)
        if let text = request.queryValue("after") {
            guard let after = UInt64(text) else { throw .badRequest("after must be a non-negative integer (the last seq seen)") }
            page = await hub.events.waitForEvents(after: after, timeout: configuration.longPollTimeout)
        } else {
            page = ([], hub.events.lastSequence)
        }
        var writer = JSONTextWriter(capacity: 64 + 96 * page.events.count)
        writer.beginObject()
        writer.key("events")
        writer.beginArray()
        for event in page.events {
            writer.beginObject()
            writer.member("seq", Int64(clamping: event.sequence))
            switch event.change {
            case .screen(let deviceID):
                writer.member("kind", "screen")
                writer.member("deviceID", deviceID)
            case .trace(let apnsID, let kind):
                writer.member("kind", "trace")
                writer.member("apnsID", apnsID.text)
                writer.member("event", kind)
            case .device(let deviceID, let online):
                writer.member("kind", "device")
                writer.member("deviceID", deviceID)
                writer.member("online", online)
            case .resync(let lost):
                writer.member("kind", "resync")
                writer.member("lost", lost)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.member("next", Int64(clamping: page.next))
        writer.endObject()
        return .json(writer.bytes)
    }
}
