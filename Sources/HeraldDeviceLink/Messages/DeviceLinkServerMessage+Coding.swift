import HeraldCore

extension DeviceLinkServerMessage {
    /// Reads a frame the server sent.
    ///
    /// Never traps: anything but a well-formed message throws a ``DeviceLinkError`` describing it. A client
    /// should skip a frame of an ``DeviceLinkErrorCode/unknownType`` (a newer server may send more types).
    public init(frame: some Collection<UInt8>) throws(DeviceLinkError) {
        let reader = try DeviceLinkError.frameReader(frame)
        let context = DeviceLinkError.context(of: reader)
        guard case .string(let type)? = reader.object["type"] else {
            throw context.with(message: "a frame needs a string member \"type\"")
        }
        switch type {
        case "welcome":
            self = .welcome(
                DeviceLinkWelcome(
                    deviceID: try reader.string("device", context: context),
                    name: try reader.string("name", context: context),
                    secret: try reader.optionalString("secret", context: context)
                )
            )
        case "registered":
            self = .registered(
                DeviceLinkRegistration(
                    id: try reader.optionalString("id", context: context),
                    bundleID: try reader.string("bundleID", context: context),
                    environment: try Self.environment(reader, context),
                    token: try Self.token(reader, context),
                    isNew: try reader.bool("new", context: context)
                )
            )
        case "unregistered":
            self = .unregistered(
                DeviceLinkUnregistration(
                    id: try reader.optionalString("id", context: context),
                    bundleID: try reader.string("bundleID", context: context),
                    environment: try Self.environment(reader, context),
                    token: try Self.token(reader, context),
                    unregisteredAtMilliseconds: try reader.integer("at", context: context)
                )
            )
        case "notification": self = .notification(try Self.notification(reader, context))
        case "error":
            self = .error(
                DeviceLinkError(
                    code: DeviceLinkErrorCode(rawValue: try reader.string("code", context: context)),
                    message: try reader.optionalString("message", context: context) ?? "",
                    id: try reader.optionalString("id", context: context),
                    apnsID: try reader.optionalString("apnsID", context: context),
                    retryAfterMilliseconds: try reader.optionalInteger("retryAfterMs", context: context)
                )
            )
        case "interact":
            self = .interact(try DeviceLinkInteraction(reading: reader, id: try reader.string("id", context: context), context: context))
        case "activity-token-registered":
            self = .activityTokenRegistered(
                DeviceLinkActivityTokenReply(
                    id: try reader.optionalString("id", context: context),
                    token: try Self.token(reader, context),
                    isNew: try reader.bool("new", context: context)
                )
            )
        case "activity-token-retired":
            self = .activityTokenRetired(
                DeviceLinkActivityTokenReply(
                    id: try reader.optionalString("id", context: context),
                    token: try Self.token(reader, context),
                    retiredAtMilliseconds: try reader.integer("at", context: context)
                )
            )
        case "channel-subscribed":
            self = .channelSubscribed(
                DeviceLinkChannelReply(
                    id: try reader.optionalString("id", context: context),
                    channelID: try reader.string("channel", context: context),
                    isNew: try reader.bool("new", context: context)
                )
            )
        case "channel-unsubscribed":
            self = .channelUnsubscribed(
                DeviceLinkChannelReply(
                    id: try reader.optionalString("id", context: context),
                    channelID: try reader.string("channel", context: context)
                )
            )
        case "web-push-subscribed":
            self = .webPushSubscribed(
                DeviceLinkWebPushSubscription(
                    id: try reader.optionalString("id", context: context),
                    token: try Self.token(reader, context),
                    endpoint: try reader.string("endpoint", context: context),
                    isNew: try reader.bool("isNew", context: context),
                    unsubscribeOnPermissionRemoval: try reader.optionalBool("unsubscribeOnPermissionRemoval", context: context) ?? false
                )
            )
        case "web-push-unsubscribed":
            self = .webPushUnsubscribed(
                DeviceLinkWebPushUnsubscription(
                    id: try reader.optionalString("id", context: context),
                    token: try Self.token(reader, context),
                    retiredAtMilliseconds: try reader.integer("retiredAt", context: context)
                )
            )
        case "broadcast":
            guard let priority = Int(exactly: try reader.integer("priority", context: context)) else {
                throw context.with(message: "\"priority\" is out of range")
            }
            self = .broadcast(
                DeviceLinkBroadcast(
                    channelID: try reader.string("channel", context: context),
                    bundleID: try reader.string("bundleID", context: context),
                    environment: try Self.environment(reader, context),
                    requestID: try reader.string("requestID", context: context),
                    priority: priority,
                    expiration: try reader.integer("expiration", context: context),
                    acceptedAtMilliseconds: try reader.integer("acceptedAt", context: context),
                    payload: try reader.rawObject("payload", context: context)
                )
            )
        default: throw context.with(code: .unknownType, message: "unknown frame type \"\(type)\"")
        }
    }

    /// The frame's text: one JSON object. A notification's payload is copied in byte for byte.
    public func frame() -> [UInt8] {
        var writer: JSONTextWriter
        switch self {
        case .welcome(let welcome):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "welcome")
            writer.member("device", welcome.deviceID)
            writer.member("name", welcome.name)
            if let secret = welcome.secret { writer.member("secret", secret) }
        case .registered(let registration):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "registered")
            writer.member("id", registration.id)
            writer.member("bundleID", registration.bundleID)
            writer.member("environment", registration.environment.rawValue)
            writer.member("token", registration.token.hex)
            writer.member("new", registration.isNew)
        case .unregistered(let unregistration):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "unregistered")
            writer.member("id", unregistration.id)
            writer.member("bundleID", unregistration.bundleID)
            writer.member("environment", unregistration.environment.rawValue)
            writer.member("token", unregistration.token.hex)
            writer.member("at", unregistration.unregisteredAtMilliseconds)
        case .notification(let notification):
            writer = JSONTextWriter(capacity: 320 + notification.payload.count)
            writer.beginObject()
            writer.member("type", "notification")
            writer.member("apnsID", notification.apnsID.text)
            writer.member("token", notification.token.hex)
            writer.member("bundleID", notification.bundleID)
            writer.member("topic", notification.topic)
            writer.member("pushType", notification.pushType.rawValue)
            writer.member("priority", notification.priority.rawValue)
            writer.member("expiration", notification.expiration)
            writer.member("collapseID", notification.collapseID)
            writer.member("acceptedAt", notification.acceptedAtMilliseconds)
            writer.member("attempt", notification.attempt)
            if notification.extensionTimeout { writer.member("extensionTimeout", true) }
            writer.key("payload")
            writer.rawValue(notification.payload)
        case .error(let error):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "error")
            writer.member("code", error.code.rawValue)
            writer.member("message", error.message)
            writer.member("id", error.id)
            writer.member("apnsID", error.apnsID)
            if let retryAfter = error.retryAfterMilliseconds { writer.member("retryAfterMs", retryAfter) }
        case .interact(let interaction):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "interact")
            writer.member("id", interaction.id)
            writer.member("bundleID", interaction.bundleID)
            writer.member("kind", interaction.kind.rawValue)
            if let identifier = interaction.identifier { writer.member("identifier", identifier) }
            if let action = interaction.action { writer.member("action", action) }
            if let text = interaction.text { writer.member("text", text) }
            if let state = interaction.state { writer.member("state", state) }
        case .activityTokenRegistered(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "activity-token-registered")
            writer.member("id", reply.id)
            writer.member("token", reply.token.hex)
            writer.member("new", reply.isNew)
        case .activityTokenRetired(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "activity-token-retired")
            writer.member("id", reply.id)
            writer.member("token", reply.token.hex)
            writer.member("at", reply.retiredAtMilliseconds ?? 0)
        case .channelSubscribed(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "channel-subscribed")
            writer.member("id", reply.id)
            writer.member("channel", reply.channelID)
            writer.member("new", reply.isNew)
        case .channelUnsubscribed(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "channel-unsubscribed")
            writer.member("id", reply.id)
            writer.member("channel", reply.channelID)
        case .webPushSubscribed(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "web-push-subscribed")
            writer.member("id", reply.id)
            writer.member("token", reply.token.hex)
            writer.member("endpoint", reply.endpoint)
            writer.member("isNew", reply.isNew)
            if reply.unsubscribeOnPermissionRemoval { writer.member("unsubscribeOnPermissionRemoval", true) }
        case .webPushUnsubscribed(let reply):
            writer = JSONTextWriter()
            writer.beginObject()
            writer.member("type", "web-push-unsubscribed")
            writer.member("id", reply.id)
            writer.member("token", reply.token.hex)
            writer.member("retiredAt", reply.retiredAtMilliseconds)
        case .broadcast(let broadcast):
            writer = JSONTextWriter(capacity: 256 + broadcast.payload.count)
            writer.beginObject()
            writer.member("type", "broadcast")
            writer.member("channel", broadcast.channelID)
            writer.member("bundleID", broadcast.bundleID)
            writer.member("environment", broadcast.environment.rawValue)
            writer.member("requestID", broadcast.requestID)
            writer.member("priority", broadcast.priority)
            writer.member("expiration", broadcast.expiration)
            writer.member("acceptedAt", broadcast.acceptedAtMilliseconds)
            writer.key("payload")
            writer.rawValue(broadcast.payload)
        }
        writer.endObject()
        return writer.bytes
    }

    private static func environment(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> APNSEnvironment {
        let text = try reader.string("environment", context: context)
        guard let environment = APNSEnvironment(rawValue: text) else {
            throw context.with(code: .invalidEnvironment, message: "\"environment\" must be \"sandbox\" or \"production\"")
        }
        return environment
    }

    private static func token(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceToken {
        guard let token = DeviceToken(hex: try reader.string("token", context: context)) else {
            throw context.with(message: "\"token\" must be a device token in hex")
        }
        return token
    }

    private static func notification(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkNotification {
        guard let apnsID = NotificationID(try reader.string("apnsID", context: context)) else {
            throw context.with(message: "\"apnsID\" must be a UUID")
        }
        guard let attempt = Int(exactly: try reader.integer("attempt", context: context)) else {
            throw context.with(message: "\"attempt\" is out of range")
        }
        guard let priority = Int(exactly: try reader.integer("priority", context: context)) else {
            throw context.with(message: "\"priority\" is out of range")
        }
        return DeviceLinkNotification(
            apnsID: apnsID,
            token: try token(reader, context),
            bundleID: try reader.string("bundleID", context: context),
            topic: try reader.string("topic", context: context),
            pushType: PushType(rawValue: try reader.string("pushType", context: context)),
            priority: APNSPriority(rawValue: priority),
            expiration: try reader.optionalInteger("expiration", context: context),
            collapseID: try reader.optionalString("collapseID", context: context),
            acceptedAtMilliseconds: try reader.integer("acceptedAt", context: context),
            attempt: attempt,
            payload: try reader.rawObject("payload", context: context),
            extensionTimeout: try reader.optionalBool("extensionTimeout", context: context) ?? false
        )
    }
}

extension DeviceLinkInteraction {
    /// Reads the members every interaction has (all but `type` and `id`) from a JSON object; a missing or mistyped
    /// one throws `context` with a message naming it.
    package init(reading reader: JSONObjectReader, id: String, context: DeviceLinkError) throws(DeviceLinkError) {
        self.init(
            id: id,
            bundleID: try reader.string("bundleID", context: context),
            kind: Kind(rawValue: try reader.string("kind", context: context)),
            identifier: try reader.optionalString("identifier", context: context),
            action: try reader.optionalString("action", context: context),
            text: try reader.optionalString("text", context: context),
            state: try reader.optionalString("state", context: context)
        )
    }
}
