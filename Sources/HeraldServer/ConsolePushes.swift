import HeraldAuth
import HeraldCore
import HeraldDelivery
import HeraldGateway
import HeraldProviderClient
import HeraldStore
import HeraldWeb
import Synchronization

/// The web console's pushes, checked and sent exactly as the gateway handles a provider's.
///
/// Validation runs the gateway's own ``ProviderRequestRules`` (the steps after authentication) against the store,
/// without storing anything. Sending is a real provider request: HTTP/2 from the server to its own provider port
/// (h2c when it is on, TLS trusting the development CA or the certificate given with `--tls-cert` otherwise), signed with a console key that exists only in
/// memory and is registered only with the gateway's token verifier (so `herald keys list` does not show it).
final class ConsolePushes: ConsolePushService {
    /// The team id of the console's key (ten characters, as Apple's are).
    static let teamID = "CONSOLEKEY"

    private let store: any NotificationStore
    private let rules: ProviderRequestRules
    private let clock: any WallClock
    private let key: PrivateSigningKey
    private let gateway: Gateway
    private let host: String
    private let caFile: String?
    private let serverCertificateFile: String?
    private let client = Mutex<APNSProviderClient?>(nil)

    /// Creates the console's key and registers it with `verifier`.
    init(
        store: any NotificationStore,
        rules: ProviderRequestRules,
        verifier: ProviderTokenVerifier,
        gateway: Gateway,
        host: String,
        caFile: String?,
        serverCertificateFile: String? = nil,
        clock: any WallClock
    ) throws {
        let key = try PrivateSigningKey.generate(teamID: Self.teamID)
        verifier.register(try key.record())
        self.store = store
        self.rules = rules
        self.clock = clock
        self.key = key
        self.gateway = gateway
        self.caFile = caFile
        self.serverCertificateFile = serverCertificateFile
        // Connect to the address the gateway listens on; a wildcard address is reached on loopback.
        switch host {
        case "0.0.0.0", "": self.host = "127.0.0.1"
        case "::": self.host = "::1"
        default: self.host = host
        }
    }

    func validate(_ push: ConsolePush) async -> ConsolePushRejection? {
        let request = await providerRequest(for: push)
        guard let tokenText = request.tokenText else { return Self.rejection(.missingDeviceToken) }
        let result = rules.check(
            head: request.head,
            tokenText: tokenText,
            body: push.payload,
            bodyTooLarge: push.payload.count > ProviderRequestRules.bodyLimit,
            store: store,
            nowMilliseconds: clock.nowMilliseconds(),
            apnsID: NotificationID.random().text
        )
        switch result {
        case .success: return nil
        case .failure(let rejection): return Self.rejection(rejection.reason)
        }
    }

    func send(_ push: ConsolePush) async throws -> ConsolePushAnswer {
        let request = await providerRequest(for: push)
        let client = try await providerClient()
        let response = try await client.send(
            APNSRequest(
                deviceToken: request.tokenText ?? "",
                payload: push.payload,
                topic: request.head.topic,
                pushType: push.pushType.map(PushType.init(rawValue:)),
                priority: push.priority.map { APNSPriority(rawValue: Int(clamping: $0)) },
                expiration: push.expiration,
                collapseID: push.collapseID,
                apnsID: push.apnsID
            )
        )
        return ConsolePushAnswer(status: response.status, apnsID: response.apnsID, reason: response.reason?.rawValue, timestamp: response.timestamp)
    }

    func channelRequest(_ request: ConsoleChannelRequest) async throws -> ConsoleChannelAnswer {
        let client = try await providerClient()
        let response: APNSChannelResponse
        switch request {
        case .create(let bundleID, let storagePolicy):
            response = try await client.createChannel(bundleID: bundleID, storagePolicy: APNSMessageStoragePolicy(rawValue: storagePolicy))
        case .delete(let bundleID, let channelID):
            response = try await client.deleteChannel(bundleID: bundleID, channelID: channelID)
        case .broadcast(let bundleID, let channelID, let priority, let expiration, let payload):
            response = try await client.broadcast(
                APNSBroadcastRequest(
                    bundleID: bundleID,
                    channelID: channelID,
                    payload: payload,
                    priority: APNSPriority(rawValue: priority),
                    expiration: expiration
                )
            )
        }
        return ConsoleChannelAnswer(
            status: response.status,
            reason: response.reason?.rawValue,
            requestID: response.requestID,
            channelID: response.channelID
        )
    }

    /// Stops the client (after the server stopped).
    func shutdown() async {
        let client = self.client.withLock { client in
            defer { client = nil }
            return client
        }
        await client?.shutdown()
    }

    // MARK: The request a provider would send

    /// The path's token and the `apns-*` headers for a push: the token given, or the active token of the device's app
    /// (a token that cannot be found becomes text that is no token, so the gateway answers `BadDeviceToken` at the
    /// step where it checks tokens); the topic given, or the app's bundle id with the push type's suffix.
    private func providerRequest(for push: ConsolePush) async -> (tokenText: String?, head: ProviderRequestHead) {
        var tokenText = push.token.flatMap { $0.isEmpty ? nil : $0 }
        var bundleID = push.bundleID
        if tokenText == nil, let deviceID = push.deviceID {
            if let bundleID,
                let record = try? await store.activeToken(deviceID: deviceID, bundleID: bundleID, environment: rules.environment)
            {
                tokenText = record.token.hex
            } else {
                tokenText = Self.noToken
            }
        }
        if let text = tokenText, !text.utf8.allSatisfy(Self.isHexDigit) {
            tokenText = Self.noToken
        }
        if bundleID == nil, let text = tokenText, let token = DeviceToken(hex: text) {
            bundleID = (try? store.lookup(token))?.bundleID
        }
        var head = ProviderRequestHead()
        head.add(name: ":method", value: "POST")
        if let topic = push.topic ?? bundleID.map({ $0 + (PushType(rawValue: push.pushType ?? "alert").topicSuffix ?? "") }) {
            head.add(name: "apns-topic", value: topic)
        }
        if let pushType = push.pushType { head.add(name: "apns-push-type", value: pushType) }
        if let priority = push.priority { head.add(name: "apns-priority", value: String(priority)) }
        if let expiration = push.expiration { head.add(name: "apns-expiration", value: String(expiration)) }
        if let collapseID = push.collapseID { head.add(name: "apns-collapse-id", value: collapseID) }
        if let apnsID = push.apnsID { head.add(name: "apns-id", value: apnsID) }
        return (tokenText, head)
    }

    /// Path-safe text that no device token has: the gateway answers `BadDeviceToken` for it.
    private static let noToken = "no-such-token"

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    /// The client to the server's own provider port, made on first use (the ports are known once the gateway listens).
    private func providerClient() async throws -> APNSProviderClient {
        if let client = client.withLock({ $0 }) { return client }
        let endpoint: APNSProviderClient.Endpoint
        if let port = await gateway.cleartextPort {
            endpoint = APNSProviderClient.Endpoint(host: host, port: port, usesTLS: false)
        } else if let port = await gateway.tlsPort {
            endpoint = APNSProviderClient.Endpoint(host: host, port: port, usesTLS: true)
        } else {
            throw ConsolePushError("the gateway is not listening")
        }
        var configuration = APNSProviderClient.Configuration(endpoint: endpoint, authentication: .token(key))
        if endpoint.usesTLS {
            configuration.trustRootFiles = caFile.map { [$0] } ?? []
            configuration.trustsSystemRoots = caFile == nil
            // A certificate given with --tls-cert may come from any CA and name any host: it is pinned instead.
            configuration.pinnedServerCertificateFile = serverCertificateFile
        }
        configuration.responseTimeout = .seconds(10)
        let made = try APNSProviderClient(configuration: configuration, clock: clock)
        let (client, extra) = self.client.withLock { client -> (APNSProviderClient, APNSProviderClient?) in
            if let existing = client { return (existing, made) }
            client = made
            return (made, nil)
        }
        await extra?.shutdown()
        return client
    }

    private static func rejection(_ reason: APNSReason) -> ConsolePushRejection {
        ConsolePushRejection(reason: reason, message: explanation(of: reason))
    }

    /// What a reason means for the send form, in one line.
    static func explanation(of reason: APNSReason) -> String {
        switch reason {
        case .payloadEmpty: "the payload is empty, or is not a JSON object (or its aps is not an object)"
        case .payloadTooLarge: "the payload is over 4096 bytes (5120 for voip)"
        case .invalidPushType: "the push type is unknown, or a background push has an alert, sound or badge, or lacks content-available"
        case .badPriority: "the priority must be 10, 5 or 1 (background pushes: 5 or 1)"
        case .badExpirationDate: "the expiration must be a non-negative number of seconds since 1970"
        case .badCollapseId: "the collapse id is over 64 bytes"
        case .badMessageId: "the apns-id must be a UUID"
        case .missingTopic: "there is no topic: choose an app or give the topic"
        case .badTopic: "the topic does not fit the push type (e.g. a voip push needs the .voip suffix)"
        case .missingDeviceToken: "there is no device token: give one, or choose a device and an app"
        case .badDeviceToken: "no app on this server has this device token (in this environment)"
        case .deviceTokenNotForTopic:
            "the device token belongs to another app than the topic, or is of the wrong kind (liveactivity pushes go to activity and push-to-start tokens only)"
        case .unregistered: "the app was removed from the device: its token no longer works"
        default: "the gateway refuses it with \(reason.rawValue)"
        }
    }
}

/// The console could not send (the gateway is not listening).
struct ConsolePushError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
