import Foundation
import HeraldAuth
import HeraldCore
import HeraldProviderClient

/// What `herald send` will do, resolved from its options: the request, the client, and the load.
struct SendPlan {
    /// Where the notification goes.
    enum Target {
        /// `POST /3/device/<token>`.
        case device(APNSRequest)
        /// `POST /4/broadcasts/apps/<bundle>`: every activity subscribed to a channel.
        case broadcast(APNSBroadcastRequest)
    }

    var target: Target
    var configuration: APNSProviderClient.Configuration
    var repeatCount: Int
    var rate: Double?
    var json: Bool
    /// A broadcast without `--expiration`: its `apns-expiration` follows the channel's storage policy, read first
    /// (``SendCommand/broadcastExpiration(policy:now:)``).
    var expirationFollowsChannel = false

    /// The push to a device; `nil` for a broadcast.
    var request: APNSRequest? {
        if case .device(let request) = target { return request }
        return nil
    }

    /// The broadcast; `nil` for a push to a device.
    var broadcast: APNSBroadcastRequest? {
        if case .broadcast(let request) = target { return request }
        return nil
    }
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

        var file = try resolvePayload(now: now)
        if broadcast == nil {
            // Why: a start without these members is dropped by the device (`missing-alert`, …) after a `200`.
            let missing = liveActivity.missingForStart(alert: alert != nil, typeKnown: token == nil)
            if !missing.isEmpty {
                throw CLIFailure("--event start needs \(missing.joined(separator: ", ")): a device drops a start without them")
            }
        }
        let authentication = try await connection.authentication(data: data)
        let topic = topic ?? file.targetBundle
        if topic == nil, case .token = authentication {
            throw CLIFailure("give --topic (the app's bundle id), or a \"\(APNSFile.targetBundleKey)\" in the payload")
        }
        let configuration = connection.configuration(endpoint: endpoint, authentication: authentication, data: data)
        if let broadcast {
            let request = try resolveBroadcast(channelID: broadcast, topic: topic, payload: file.payload, now: now)
            var plan = SendPlan(target: .broadcast(request), configuration: configuration, repeatCount: repeatCount, rate: rate, json: json)
            plan.expirationFollowsChannel = expiration == nil
            return plan
        }
        let pushType = pushType.map(PushType.init(rawValue:)) ?? Self.defaultPushType(for: file.object)
        let priority = priority.map(APNSPriority.init(rawValue:)) ?? (pushType == .background ? .powerConsiderate : nil)
        let deviceToken: String
        if let token {
            deviceToken = token
        } else {
            guard let topic else { throw CLIFailure("give --token, or --topic to send to the only device with that app") }
            let kind = Self.tokenKind(pushType: pushType, payload: file.object)
            let activityType = kind.isActivityKind ? file.object["aps"]?.objectValue?["attributes-type"]?.stringValue : nil
            let found = try await LocalDevelopment.onlyToken(topic: topic, kind: kind, activityType: activityType, data: data)
            deviceToken = found.token.hex
            if kind == .pushToStart, liveActivity.event != nil, activityType == nil, let type = found.activityType {
                file = try resolvePayload(now: now, attributesType: type)
            }
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
        return SendPlan(target: .device(request), configuration: configuration, repeatCount: repeatCount, rate: rate, json: json)
    }

    /// `--broadcast CHANNEL`: the app is --topic's bundle id (less a `.push-type.liveactivity` suffix); push type
    /// liveactivity, priority 10 and expiration 0 unless given, as Apple asks (without `--expiration`, `run` sets the
    /// expiration by the channel's storage policy before sending).
    func resolveBroadcast(channelID: String, topic: String?, payload: [UInt8], now: Date) throws -> APNSBroadcastRequest {
        guard token == nil else { throw CLIFailure("give --token or --broadcast, not both") }
        guard repeatCount == 1 else { throw CLIFailure("--repeat is for pushes to a device, not --broadcast") }
        guard collapseID == nil, apnsID == nil else { throw CLIFailure("--collapse-id and --apns-id are not broadcast headers") }
        guard let topic else { throw CLIFailure("give --topic (the app's bundle id) with --broadcast") }
        let suffix = PushType.liveactivity.topicSuffix ?? ""
        let bundleID = topic.hasSuffix(suffix) && topic.count > suffix.count ? String(topic.dropLast(suffix.count)) : topic
        return APNSBroadcastRequest(
            bundleID: bundleID,
            channelID: channelID,
            payload: payload,
            pushType: pushType.map(PushType.init(rawValue:)) ?? .liveactivity,
            priority: priority.map(APNSPriority.init(rawValue:)) ?? .immediate,
            expiration: try resolveExpiration(now: now) ?? 0
        )
    }

    /// The one payload source given, parsed; a `"Simulator Target Bundle"` member is taken out of any of them.
    ///
    /// - Parameter now: the Live Activity payload's timestamp.
    /// - Parameter attributesType: with `--event start`, `aps.attributes-type` when `--attributes-type` is not given.
    func resolvePayload(now: Date, attributesType: String? = nil) throws -> APNSFile {
        let liveActivityPayload = try liveActivity.payload(now: now, alert: alert, attributesType: attributesType)
        // With --event, --alert is the Live Activity's alert, not a payload of its own.
        let alertSource = liveActivity.event == nil ? alert : nil
        let sources = [apnsFile, payload, payloadFile, alertSource, liveActivity.event].compactMap { $0 }
        guard sources.count == 1 else {
            throw CLIFailure(
                sources.isEmpty
                    ? "give a payload: --payload JSON, --payload-file FILE, a .apns file, --alert TEXT, or --event EVENT"
                    : "give one payload, not \(sources.count) (--payload, --payload-file, a .apns file, --alert, --event)"
            )
        }
        do {
            if let liveActivityPayload {
                return try APNSFile(bytes: liveActivityPayload)
            }
            if let path = apnsFile ?? payloadFile {
                try SystemError.requireReadable(path)
                return try APNSFile(contentsOf: URL(fileURLWithPath: path))
            }
            if let payload {
                return try APNSFile(bytes: Array(payload.utf8))
            }
            let document: JSONValue = ["aps": ["alert": .string(alert ?? "")]]
            return try APNSFile(bytes: document.jsonBytes())
        } catch let error as APNSFile.ParseError {
            let source = apnsFile ?? payloadFile ?? "--payload"
            throw CLIFailure("\(source): \(error)")
        }
    }

    /// How long a broadcast sent without `--expiration` is kept on a channel that keeps its most recent message:
    /// Apple keeps it "up to 8 hours", as Herald does by default (docs/broadcast.md, "Storage policy 1").
    static let keptBroadcastSeconds: Int64 = 8 * 3600

    /// `apns-expiration` for a broadcast sent without `--expiration`: now plus ``keptBroadcastSeconds`` on a channel
    /// with storage policy 1, so that the message is kept for devices that subscribe later (0 would forget it); 0 on a
    /// channel with policy 0 (which takes only 0), or when the server did not say (`nil`: another server, an unknown
    /// channel, which the broadcast's own answer then reports).
    static func broadcastExpiration(policy: APNSMessageStoragePolicy?, now: Date) -> Int64 {
        policy == .mostRecentMessageStored ? Int64(now.timeIntervalSince1970) + keptBroadcastSeconds : 0
    }

    /// `--expiration`: epoch seconds, `0`, or `+SECONDS` from `now`.
    func resolveExpiration(now: Date) throws -> Int64? {
        guard let expiration else { return nil }
        guard let seconds = Self.epochSeconds(expiration, now: Int64(now.timeIntervalSince1970)) else {
            throw CLIFailure("--expiration must be seconds since the epoch, 0, or +SECONDS from now, not '\(expiration)'")
        }
        return seconds
    }

    /// Seconds since the epoch as given, or `+SECONDS` added to `now`; `nil` for anything else, a negative number,
    /// or a sum past `Int64.max`.
    static func epochSeconds(_ text: String, now: Int64) -> Int64? {
        if text.hasPrefix("+") {
            guard let seconds = Int64(text.dropFirst()), seconds >= 0 else { return nil }
            let (sum, overflow) = now.addingReportingOverflow(seconds)
            return overflow ? nil : sum
        }
        guard let seconds = Int64(text), seconds >= 0 else { return nil }
        return seconds
    }

    /// The kind of token a push needs (spec §A.11): a push-to-start token for a `liveactivity` push with
    /// `event: start`, an activity token for another `liveactivity` push, the app's device token for the rest.
    static func tokenKind(pushType: PushType, payload: JSONObject) -> TokenKind {
        guard pushType == .liveactivity else { return .device }
        return payload["aps"]?.objectValue?["event"]?.stringValue == "start" ? .pushToStart : .activity
    }

    /// `liveactivity` for a payload whose `aps` has an `event` (a Live Activity's start, update or end);
    /// `background` for one whose `aps` has `content-available: 1` and nothing a person would see or hear; `alert`
    /// otherwise (spec §A.3: the push type must match the payload).
    static func defaultPushType(for payload: JSONObject) -> PushType {
        guard let aps = payload["aps"]?.objectValue else { return .alert }
        if aps["event"]?.stringValue != nil { return .liveactivity }
        guard aps["content-available"]?.integerValue == 1 else { return .alert }
        let visible = aps.contains("alert") || aps.contains("sound") || aps.contains("badge")
        return visible ? .alert : .background
    }
}
