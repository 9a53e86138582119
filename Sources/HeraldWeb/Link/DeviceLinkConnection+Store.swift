import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import HeraldStore

extension DeviceLinkConnection {
    /// The result of a store request, fed back into the state machine on the connection's event loop.
    enum StoreOutcome: Sendable {
        case authenticated(deviceID: String, name: String, secret: String?, tokens: [DeviceToken])
        case authenticationFailed
        /// A fault rule keeps the device offline: the `device-offline` error, then close.
        case heldOffline(DeviceLinkError)
        case registered(DeviceLinkRegistration)
        case unregistered(DeviceLinkUnregistration)
        case activityTokenRegistered(DeviceLinkActivityTokenReply)
        case activityTokenRetired(DeviceLinkActivityTokenReply)
        case channelSubscribed(DeviceLinkChannelReply, kept: DeviceLinkBroadcast?)
        /// `replaced`: the subscription of the same origin and key it replaced, and when that one ended.
        case webPushSubscribed(DeviceLinkWebPushSubscription, replaced: (token: DeviceToken, atMilliseconds: Int64)?)
        case webPushUnsubscribed(DeviceLinkWebPushUnsubscription)
        /// The report's notification was sent to the reporting device.
        case reportChecked(DeviceLinkReport)
        case failed(DeviceLinkError)
    }

    /// Checks a device's id and secret; on success reads its active tokens for the engine.
    static func authenticate(deviceID: String, secret: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            guard let device = try await services.registry.authenticateDevice(id: deviceID, secret: secret) else {
                return .authenticationFailed
            }
            let tokens = try await services.registry.tokens(deviceID: device.id).filter(\.isActive).map(\.token)
            if let window = services.engine.offlineWindow(for: tokens) {
                let now = services.clock.nowMilliseconds()
                return .heldOffline(
                    DeviceLinkError(
                        code: .deviceOffline,
                        message: window.message(now: now),
                        retryAfterMilliseconds: window.retryAfterMilliseconds(now: now)
                    )
                )
            }
            return .authenticated(deviceID: device.id, name: device.name, secret: nil, tokens: tokens)
        } catch {
            return .failed(internalError(error, while: "checking the device", id: nil, services: services))
        }
    }

    /// Creates a device (self-enrolment); its secret goes back in the `welcome`.
    static func enrol(name: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            let credentials = try await services.registry.addDevice(name: name)
            services.logger.info("device enrolled", metadata: ["device_link.device": "\(credentials.device.id)"])
            return .authenticated(deviceID: credentials.device.id, name: credentials.device.name, secret: credentials.secret, tokens: [])
        } catch {
            return .failed(internalError(error, while: "enrolling the device", id: nil, services: services))
        }
    }

    /// Finds or issues the app's token.
    static func register(_ request: DeviceLinkAppRequest, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            let registration = try await services.registry.registerAppToken(
                deviceID: deviceID,
                bundleID: request.bundleID,
                environment: request.environment
            )
            return .registered(
                DeviceLinkRegistration(
                    id: request.id,
                    bundleID: request.bundleID,
                    environment: request.environment,
                    token: registration.token.token,
                    isNew: registration.isNew
                )
            )
        } catch {
            return .failed(internalError(error, while: "registering the app", id: request.id, services: services))
        }
    }

    /// Unregisters the app's active token at the current time.
    static func unregister(_ request: DeviceLinkAppRequest, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            guard
                let active = try await services.registry.activeToken(
                    deviceID: deviceID,
                    bundleID: request.bundleID,
                    environment: request.environment
                )
            else {
                return .failed(
                    DeviceLinkError(
                        code: .notRegistered,
                        message: "\(request.bundleID) (\(request.environment.rawValue)) has no active token on this device",
                        id: request.id
                    )
                )
            }
            let now = services.clock.nowMilliseconds()
            let record = try await services.registry.unregister(active.token, atMilliseconds: now)
            return .unregistered(
                DeviceLinkUnregistration(
                    id: request.id,
                    bundleID: request.bundleID,
                    environment: request.environment,
                    token: record.token,
                    unregisteredAtMilliseconds: record.unregisteredAtMilliseconds ?? now
                )
            )
        } catch {
            return .failed(internalError(error, while: "unregistering the app", id: request.id, services: services))
        }
    }

    /// Registers a Live Activity token the device reported (docs/device-link.md, "activity-token").
    static func registerActivityToken(_ token: DeviceLinkActivityToken, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        let request = ActivityTokenRequest(
            deviceID: deviceID,
            bundleID: token.bundleID,
            environment: token.environment,
            kind: token.kind,
            token: token.token,
            activityType: token.activityType
        )
        do {
            let registration = try await services.registry.registerActivityToken(request, limit: DeviceLinkClientMessage.maximumActivityTokens)
            return .activityTokenRegistered(DeviceLinkActivityTokenReply(id: token.id, token: token.token, isNew: registration.isNew))
        } catch let error as StoreError where error == .duplicateDeviceToken {
            return .failed(
                DeviceLinkError(code: .tokenTaken, message: "the token is registered to another device, app or kind, or was retired", id: token.id)
            )
        } catch let error as StoreError where error == .tooManyTokens {
            let limit = DeviceLinkClientMessage.maximumActivityTokens
            return .failed(DeviceLinkError(code: .tooManyTokens, message: "the device already has \(limit) active activity tokens", id: token.id))
        } catch {
            return .failed(internalError(error, while: "registering the activity token", id: token.id, services: services))
        }
    }

    /// Retires one of the device's Live Activity tokens at the current time.
    static func retireActivityToken(id: String?, token: DeviceToken, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            let record = try await services.registry.tokens(deviceID: deviceID).first { $0.token == token }
            guard let record, record.kind.isActivityKind, record.isActive else {
                return .failed(DeviceLinkError(code: .notRegistered, message: "the device has no active activity token \(token.hex)", id: id))
            }
            let now = services.clock.nowMilliseconds()
            let retired = try await services.registry.unregister(token, atMilliseconds: now)
            return .activityTokenRetired(
                DeviceLinkActivityTokenReply(id: id, token: token, retiredAtMilliseconds: retired.unregisteredAtMilliseconds ?? now)
            )
        } catch {
            return .failed(internalError(error, while: "retiring the activity token", id: id, services: services))
        }
    }

    /// Subscribes the connection to a channel of the app (docs/device-link.md, "subscribe-channel"); answers with the
    /// channel's kept broadcast, if it keeps one now.
    ///
    /// The hub hears of the subscription before the store is read: a broadcast accepted in between is then sent to
    /// the device as well as read back as the kept one, and the device drops the second copy by its request id;
    /// the other order could lose it.
    static func subscribeChannel(_ request: DeviceLinkChannelRequest, session: DeviceLinkSession, services: DeviceLinkServices) async -> StoreOutcome
    {
        let key = ChannelKey(channelID: request.channelID, bundleID: request.bundleID, environment: request.environment)
        let isNew: Bool
        do {
            isNew = try services.channels.subscribe(session, to: key)
        } catch {
            let limit = ChannelHub.maximumSubscriptionsPerSession
            return .failed(
                DeviceLinkError(code: .tooManySubscriptions, message: "the connection already subscribes to \(limit) channels", id: request.id)
            )
        }
        do {
            guard let store = services.store else { throw StoreError.shutDown }
            guard let channel = try await store.channel(id: request.channelID, bundleID: request.bundleID, environment: request.environment) else {
                if isNew { services.channels.unsubscribe(session.id, from: key) }
                return .failed(
                    DeviceLinkError(
                        code: .unknownChannel,
                        message: "\(request.bundleID) (\(request.environment.rawValue)) has no channel \(request.channelID)",
                        id: request.id
                    )
                )
            }
            let kept = channel.keptMessage(atMilliseconds: services.clock.nowMilliseconds())
            return .channelSubscribed(DeviceLinkChannelReply(id: request.id, channelID: request.channelID, isNew: isNew), kept: kept)
        } catch {
            if isNew { services.channels.unsubscribe(session.id, from: key) }
            return .failed(internalError(error, while: "subscribing to the channel", id: request.id, services: services))
        }
    }

    /// Accepts a report only from the device its notification was sent to (the holder of the notification's token);
    /// anything else, an unknown `apns-id` included, is `unknown-notification` (docs/device-link.md, "report").
    ///
    /// Both refusals read the same, so that a device cannot learn whether another device's notification exists.
    static func checkReport(_ report: DeviceLinkReport, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            guard let store = services.store else { throw StoreError.shutDown }
            guard let stored = try await store.notification(report.apnsID),
                try store.lookup(stored.notification.token)?.deviceID == deviceID
            else {
                return .failed(
                    DeviceLinkError(
                        code: .unknownNotification,
                        message: "no notification with this apns-id was sent to this device",
                        apnsID: report.apnsID.text
                    )
                )
            }
            return .reportChecked(report)
        } catch {
            var failure = internalError(error, while: "checking the report", id: nil, services: services)
            failure.apnsID = report.apnsID.text
            return .failed(failure)
        }
    }

    static func internalError(_ error: any Error, while action: String, id: String?, services: DeviceLinkServices) -> DeviceLinkError {
        services.logger.warning("device link store request failed", metadata: ["device_link.error": "\(error)"])
        return DeviceLinkError(code: .internal, message: "the server failed while \(action); try again", id: id)
    }
}
