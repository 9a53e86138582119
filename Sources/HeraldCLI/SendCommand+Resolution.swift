import Foundation
import HeraldAuth
import HeraldCore
import HeraldProviderClient

/// What `herald send` will do, resolved from its options: the request, the client, and the load.
struct SendPlan {
    var request: APNSRequest
    var configuration: APNSProviderClient.Configuration
    var repeatCount: Int
    var rate: Double?
    var json: Bool
}

extension SendCommand {
    /// Turns the options into a plan, reading the payload file and finding the key.
    ///
    /// - Parameter now: the time `--expiration +SECONDS` counts from.
    /// - Throws: ``CLIFailure`` with a one-line message for anything the command cannot make sense of.
    func resolve(now: Date) async throws -> SendPlan {
        guard repeatCount >= 1 else { throw CLIFailure("--repeat must be at least 1") }
        if let rate, !(rate > 0 && rate.isFinite) { throw CLIFailure("--rate must be a positive number of notifications per second") }
        let endpoint = try connection.endpoint()

        let file = try resolvePayload()
        let authentication = try await connection.authentication(data: data)
        let topic = topic ?? file.targetBundle
        if topic == nil, case .token = authentication {
            throw CLIFailure("give --topic (the app's bundle id), or a \"\(APNSFile.targetBundleKey)\" in the payload")
        }
        let pushType = pushType.map(PushType.init(rawValue:)) ?? Self.defaultPushType(for: file.object)
        let priority = priority.map(APNSPriority.init(rawValue:)) ?? (pushType == .background ? .powerConsiderate : nil)
        let deviceToken: String
        if let token {
            deviceToken = token
        } else {
            guard let topic else { throw CLIFailure("give --token, or --topic to send to the only device with that app") }
            deviceToken = try await LocalDevelopment.onlyToken(topic: topic, data: data).hex
        }
        let request = APNSRequest(
            deviceToken: deviceToken,
            payload: file.payload,
            topic: topic,
            pushType: pushType,
            priority: priority,
            expiration: try resolveExpiration(now: now),
            collapseID: collapseID,
            apnsID: apnsID
        )
        let configuration = connection.configuration(endpoint: endpoint, authentication: authentication, data: data)
        return SendPlan(request: request, configuration: configuration, repeatCount: repeatCount, rate: rate, json: json)
    }

    /// The one payload source given, parsed; a `"Simulator Target Bundle"` member is taken out of any of them.
    func resolvePayload() throws -> APNSFile {
        let sources = [apnsFile, payload, payloadFile, alert].compactMap { $0 }
        guard sources.count == 1 else {
            throw CLIFailure(
                sources.isEmpty
                    ? "give a payload: --payload JSON, --payload-file FILE, a .apns file, or --alert TEXT"
                    : "give one payload, not \(sources.count) (--payload, --payload-file, a .apns file, --alert)"
            )
        }
        do {
            if let path = apnsFile ?? payloadFile {
                try SystemError.requireReadable(path)
                return try APNSFile(contentsOf: URL(fileURLWithPath: path))
            }
            if let payload {
                return try APNSFile(bytes: Array(payload.utf8))
            }
            let document = try JSONSerialization.data(withJSONObject: ["aps": ["alert": alert ?? ""]], options: [.withoutEscapingSlashes])
            return try APNSFile(bytes: document)
        } catch let error as APNSFile.ParseError {
            let source = apnsFile ?? payloadFile ?? "--payload"
            throw CLIFailure("\(source): \(error)")
        }
    }

    /// `--expiration`: epoch seconds, `0`, or `+SECONDS` from `now`.
    func resolveExpiration(now: Date) throws -> Int64? {
        guard let expiration else { return nil }
        if expiration.hasPrefix("+"), let seconds = Int64(expiration.dropFirst()), seconds >= 0 {
            return Int64(now.timeIntervalSince1970) + seconds
        }
        guard let seconds = Int64(expiration), seconds >= 0 else {
            throw CLIFailure("--expiration must be seconds since the epoch, 0, or +SECONDS from now, not '\(expiration)'")
        }
        return seconds
    }

    /// `background` for a payload whose `aps` has `content-available: 1` and nothing a person would see or hear;
    /// `alert` otherwise (spec §A.3: the push type must match the payload).
    static func defaultPushType(for payload: JSONObject) -> PushType {
        guard let aps = payload["aps"]?.objectValue, aps["content-available"]?.integerValue == 1 else { return .alert }
        let visible = aps.contains("alert") || aps.contains("sound") || aps.contains("badge")
        return visible ? .alert : .background
    }
}
