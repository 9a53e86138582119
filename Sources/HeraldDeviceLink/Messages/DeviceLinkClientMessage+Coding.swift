import HeraldCore

extension DeviceLinkClientMessage {
    /// The longest enrolment name accepted, in UTF-8 bytes (control characters are refused too).
    public static let maximumNameLength = 200
    /// The largest `screen` message a server accepts, in bytes (other messages: 64 KiB).
    public static let maximumScreenSize = 1 << 20

    /// Reads a frame a device sent.
    ///
    /// Never traps: anything but a well-formed message throws the ``DeviceLinkError`` to send back, carrying
    /// the frame's `id` and `apnsID` when they could be read. Unknown members are ignored.
    public init(frame: some Collection<UInt8>) throws(DeviceLinkError) {
        let reader = try DeviceLinkError.frameReader(frame)
        let context = DeviceLinkError.context(of: reader)
        guard case .string(let type)? = reader.object["type"] else {
            throw context.with(message: "a frame needs a string member \"type\"")
        }
        switch type {
        case "hello": self = .hello(try Self.hello(reader, context))
        case "register": self = .register(try Self.appRequest(reader, context))
        case "unregister": self = .unregister(try Self.appRequest(reader, context))
        case "ack": self = .ack(apnsID: try Self.notificationID(reader, context))
        case "report": self = .report(try Self.report(reader, context))
        case "screen": self = .screen(json: try Self.screen(reader, context))
        case "interacted":
            self = .interacted(
                DeviceLinkInteractionResult(
                    id: try reader.string("id", context: context),
                    error: try reader.optionalString("error", context: context)
                )
            )
        case "activity-token": self = .activityToken(try Self.activityToken(reader, context))
        case "retire-activity-token":
            self = .retireActivityToken(id: try reader.optionalString("id", context: context), token: try Self.activityTokenValue(reader, context))
        case "subscribe-channel": self = .subscribeChannel(try Self.channelRequest(reader, context))
        case "unsubscribe-channel": self = .unsubscribeChannel(try Self.channelRequest(reader, context))
        case "web-push-subscribe": self = .webPushSubscribe(try Self.webPushSubscription(reader, context))
        case "web-push-unsubscribe":
            self = .webPushUnsubscribe(id: try reader.optionalString("id", context: context), token: try Self.activityTokenValue(reader, context))
        default: throw context.with(code: .unknownType, message: "unknown frame type \"\(type)\"")
        }
    }

    /// The frame's text: one JSON object.
    public func frame() -> [UInt8] {
        var writer: JSONTextWriter
        if case .screen(let json) = self {
            writer = JSONTextWriter(capacity: 32 + json.count)
        } else {
            writer = JSONTextWriter()
        }
        writer.beginObject()
        switch self {
        case .hello(.device(let id, let secret)):
            writer.member("type", "hello")
            writer.member("device", id)
            writer.member("secret", secret)
        case .hello(.enrol(let name)):
            writer.member("type", "hello")
            writer.member("enrol", name)
        case .register(let request):
            writer.member("type", "register")
            Self.write(request, into: &writer)
        case .unregister(let request):
            writer.member("type", "unregister")
            Self.write(request, into: &writer)
        case .ack(let apnsID):
            writer.member("type", "ack")
            writer.member("apnsID", apnsID.text)
        case .report(let report):
            writer.member("type", "report")
            writer.member("apnsID", report.apnsID.text)
            writer.member("event", report.event.rawValue)
            if let detail = report.detail {
                writer.key("detail")
                writer.rawValue(detail)
            }
        case .screen(let json):
            writer.member("type", "screen")
            writer.key("screen")
            writer.rawValue(json)
        case .interacted(let result):
            writer.member("type", "interacted")
            writer.member("id", result.id)
            if let error = result.error { writer.member("error", error) }
        case .activityToken(let token):
            writer.member("type", "activity-token")
            Self.write(DeviceLinkAppRequest(id: token.id, bundleID: token.bundleID, environment: token.environment), into: &writer)
            writer.member("kind", token.kind.rawValue)
            writer.member("activityType", token.activityType)
            writer.member("token", token.token.hex)
        case .retireActivityToken(let id, let token):
            writer.member("type", "retire-activity-token")
            if let id { writer.member("id", id) }
            writer.member("token", token.hex)
        case .subscribeChannel(let request):
            Self.write(request, type: "subscribe-channel", into: &writer)
        case .unsubscribeChannel(let request):
            Self.write(request, type: "unsubscribe-channel", into: &writer)
        case .webPushSubscribe(let request):
            writer.member("type", "web-push-subscribe")
            if let id = request.id { writer.member("id", id) }
            writer.member("origin", request.origin)
            writer.member("applicationServerKey", request.applicationServerKey)
            writer.member("token", request.token.hex)
        case .webPushUnsubscribe(let id, let token):
            writer.member("type", "web-push-unsubscribe")
            if let id { writer.member("id", id) }
            writer.member("token", token.hex)
        }
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ request: DeviceLinkAppRequest, into writer: inout JSONTextWriter) {
        if let id = request.id { writer.member("id", id) }
        writer.member("bundleID", request.bundleID)
        writer.member("environment", request.environment.rawValue)
    }

    private static func hello(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkHello {
        let enrol = try reader.optionalString("enrol", context: context)
        let device = try reader.optionalString("device", context: context)
        let secret = try reader.optionalString("secret", context: context)
        switch (enrol, device, secret) {
        case (let name?, nil, nil):
            guard !name.isEmpty, name.utf8.count <= maximumNameLength,
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw context.with(message: "\"enrol\" must be a name of 1 to \(maximumNameLength) bytes without control characters")
            }
            return .enrol(name: name)
        case (nil, let device?, let secret?):
            return .device(id: device, secret: secret)
        default:
            throw context.with(message: "hello needs either \"device\" and \"secret\", or \"enrol\"")
        }
    }

    static func appRequest(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkAppRequest {
        let id = try reader.optionalString("id", context: context)
        let bundleID = try reader.string("bundleID", context: context)
        guard Topic.isWellFormed(bundleID) else {
            throw context.with(
                code: .invalidBundleID,
                message: "\"bundleID\" must be 1 to 255 letters, digits, '.', '-' or '_'"
            )
        }
        let environment: APNSEnvironment
        switch try reader.optionalString("environment", context: context) {
        case nil: environment = .sandbox
        case let text?:
            guard let value = APNSEnvironment(rawValue: text) else {
                throw context.with(code: .invalidEnvironment, message: "\"environment\" must be \"sandbox\" or \"production\"")
            }
            environment = value
        }
        return DeviceLinkAppRequest(id: id, bundleID: bundleID, environment: environment)
    }

    private static func notificationID(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> NotificationID {
        let text = try reader.string("apnsID", context: context)
        guard let id = NotificationID(text) else { throw context.with(message: "\"apnsID\" must be a UUID") }
        return id
    }

    /// The `screen` member's bytes, once its object has the shape of a `DeviceSnapshot` (``JSONShape/deviceSnapshot``).
    private static func screen(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> [UInt8] {
        let json = try reader.rawObject("screen", context: context)
        if let screen = reader.object["screen"], let problem = JSONShape.deviceSnapshot.problem(with: screen, at: "screen") {
            throw context.with(message: "\"screen\" is not a DeviceSnapshot: \(problem)")
        }
        return json
    }

    private static func report(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkReport {
        let apnsID = try notificationID(reader, context)
        let event = DeviceLinkReportEvent(rawValue: try reader.string("event", context: context))
        guard event.isKnown else {
            let known = DeviceLinkReportEvent.allKnown.map(\.rawValue).joined(separator: ", ")
            throw context.with(code: .unknownEvent, message: "unknown event \"\(event)\"; known: \(known)")
        }
        let detail = try reader.optionalRawObject("detail", context: context)
        return DeviceLinkReport(apnsID: apnsID, event: event, detail: detail)
    }
}

extension DeviceLinkError: JSONMemberError {
    /// Reads a frame that must be one JSON object; anything else is a `malformed-frame` error.
    static func frameReader(_ frame: some Collection<UInt8>) throws(DeviceLinkError) -> JSONObjectReader {
        do {
            return try JSONObjectReader(frame)
        } catch {
            let message = error.parseFailure.map { "the frame is not valid JSON: \($0)" } ?? "the frame must be a JSON object"
            throw DeviceLinkError(code: .malformedFrame, message: message)
        }
    }

    /// A `malformed-frame` error carrying the frame's `id` and `apnsID` when they are strings.
    static func context(of reader: JSONObjectReader) -> DeviceLinkError {
        DeviceLinkError(
            code: .malformedFrame,
            message: "malformed frame",
            id: reader.object["id"]?.stringValue,
            apnsID: reader.object["apnsID"]?.stringValue
        )
    }
}
