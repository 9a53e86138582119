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

    private static func internalError(_ error: any Error, while action: String, id: String?, services: DeviceLinkServices) -> DeviceLinkError {
        services.logger.warning("device link store request failed", metadata: ["device_link.error": "\(error)"])
        return DeviceLinkError(code: .internal, message: "the server failed while \(action); try again", id: id)
    }
}
