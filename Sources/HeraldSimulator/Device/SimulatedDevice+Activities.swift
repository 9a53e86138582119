import Foundation
import HeraldActivityKit
import HeraldUserNotifications

import enum HeraldCore.APNSEnvironment
import struct HeraldCore.DeviceToken
import struct HeraldCore.JSONParser
import struct HeraldCore.NotificationID
import struct HeraldCore.TokenKind

/// A Live Activity token a device holds, as its host registers it with the server.
public struct SimulatedActivityToken: Sendable, Hashable {
    /// The app.
    public var bundleID: String
    /// The app's environment.
    public var environment: APNSEnvironment
    /// `activity` or `push-to-start`.
    public var kind: TokenKind
    /// The activity type's name.
    public var activityType: String
    /// The token.
    public var token: DeviceToken

    /// Creates one.
    public init(bundleID: String, environment: APNSEnvironment, kind: TokenKind, activityType: String, token: DeviceToken) {
        self.bundleID = bundleID
        self.environment = environment
        self.kind = kind
        self.activityType = activityType
        self.token = token
    }
}

/// A broadcast channel an app's Live Activities follow, as the device's host subscribes to it.
public struct SimulatedChannelSubscription: Sendable, Hashable {
    /// The app.
    public var bundleID: String
    /// The app's environment.
    public var environment: APNSEnvironment
    /// The channel id.
    public var channelID: String
}

/// One broadcast as the device receives it (a device-link `broadcast` frame).
public struct IncomingBroadcast: Sendable, Hashable {
    /// The channel id.
    public var channelID: String
    /// The app.
    public var bundleID: String
    /// The broadcast's `apns-request-id`: a second copy is dropped.
    public var requestID: String
    /// `apns-priority`.
    public var priority: Int
    /// The Live Activity payload.
    public var payload: [UInt8]

    /// Creates one.
    public init(channelID: String, bundleID: String, requestID: String, priority: Int, payload: [UInt8]) {
        self.channelID = channelID
        self.bundleID = bundleID
        self.requestID = requestID
        self.priority = priority
        self.payload = payload
    }
}

extension SimulatedDevice {
    /// Every channel the device's apps follow now: each live activity's channel (an activity requested with
    /// `pushType: .channel(id)` or started with `input-push-channel`), once per app.
    ///
    /// A host subscribes what is new and unsubscribes what is gone (docs/device-link.md, "subscribe-channel").
    public func channelSubscriptions() -> [SimulatedChannelSubscription] {
        var subscriptions: [SimulatedChannelSubscription] = []
        for installed in installedApps {
            guard let center = apps[installed.bundleID]?.activities else { continue }
            center.evaluate()
            for channelID in center.subscribedChannels {
                subscriptions.append(
                    SimulatedChannelSubscription(bundleID: installed.bundleID, environment: installed.environment, channelID: channelID)
                )
            }
        }
        return subscriptions
    }

    /// Hands a broadcast to the app's ActivityKit, which applies it to every live activity following the channel,
    /// and reports what happened: `displayed` with what those activities now show, or `dropped` with the reason
    /// (`duplicate` for a request id already received: the kept message may come again after a reconnect).
    public func receiveBroadcast(_ broadcast: IncomingBroadcast) -> [DeviceReport] {
        let apnsID = NotificationID(broadcast.requestID)
        func drop(_ reason: String, _ message: String) -> [DeviceReport] {
            [
                DeviceReport(
                    event: .dropped,
                    bundleID: broadcast.bundleID,
                    apnsID: apnsID,
                    notificationIdentifier: broadcast.requestID,
                    date: clock.now,
                    detail: ["reason": .string(reason), "message": .string(message), "channel": .string(broadcast.channelID)]
                )
            ]
        }
        guard recentAPNSIDs.insert("broadcast:\(broadcast.requestID)") else {
            return drop(DropReason.duplicate.rawValue, "broadcast \(broadcast.requestID) was already received")
        }
        guard let center = apps[broadcast.bundleID]?.activities else {
            return drop(DropReason.unknownApp.rawValue, "no app \(broadcast.bundleID) with Live Activities is installed on \(name)")
        }
        let events = center.receive(payload: Data(broadcast.payload), target: .channel(broadcast.channelID), priority: broadcast.priority)
        if !events.contains(where: Self.isDrop), events.compactMap(Self.activityID).isEmpty {
            return drop("no-activity", "no live activity of \(broadcast.bundleID) follows channel \(broadcast.channelID)")
        }
        let context: [String: JSONValue] = ["channel": .string(broadcast.channelID), "priority": .int(broadcast.priority)]
        return activityReport(events, center: center, context: context) { event, detail in
            DeviceReport(
                event: event,
                bundleID: broadcast.bundleID,
                apnsID: apnsID,
                notificationIdentifier: broadcast.requestID,
                date: clock.now,
                detail: detail
            )
        }
    }

    /// Every Live Activity token the device's apps hold now: each type's push-to-start token and the push token of
    /// each activity still on screen (an ended activity keeps its token until it is dismissed).
    ///
    /// A host registers what is new and retires what is gone (docs/device-link.md, "activity-token").
    public func activityTokens() -> [SimulatedActivityToken] {
        var tokens: [SimulatedActivityToken] = []
        for installed in installedApps {
            guard let app = apps[installed.bundleID], let center = app.activities else { continue }
            center.evaluate()
            for type in app.manifest.activities {
                guard let data = center.pushToStartToken(typeName: type.name), let token = DeviceToken(hex: Self.hex(data)) else { continue }
                tokens.append(
                    SimulatedActivityToken(
                        bundleID: installed.bundleID,
                        environment: installed.environment,
                        kind: .pushToStart,
                        activityType: type.name,
                        token: token
                    )
                )
            }
            for activity in center.snapshots {
                guard let hex = activity.pushToken, let token = DeviceToken(hex: hex) else { continue }
                tokens.append(
                    SimulatedActivityToken(
                        bundleID: installed.bundleID,
                        environment: installed.environment,
                        kind: .activity,
                        activityType: activity.typeName,
                        token: token
                    )
                )
            }
        }
        return tokens
    }

    /// The app's Live Activities as a console shows them now (empty for an app without activity types): time is
    /// applied first, so an activity past its stale date is stale and one past its dismissal date is gone.
    public func activities(in bundleID: String) -> [ActivitySnapshot] {
        guard let center = apps[bundleID]?.activities else { return [] }
        center.evaluate()
        return center.snapshots
    }

    /// Hands a `liveactivity` push to the app's ActivityKit, addressed by the token it was sent to, and reports what
    /// happened: `displayed` with what the activity now shows, or `dropped` with ActivityKit's reason.
    func receiveActivityPush(_ notification: IncomingNotification, center: ActivityCenter, identifier: String) -> [DeviceReport] {
        let app = apps[notification.bundleID]
        let pushToStart = app?.manifest.activities.compactMap { center.pushToStartToken(typeName: $0.name) } ?? []
        let tokenData = notification.token.map { Self.bytes($0.hex) } ?? Data()
        let target: ActivityPushTarget = pushToStart.contains(tokenData) ? .pushToStartToken(tokenData) : .activityToken(tokenData)
        let events = center.receive(payload: Data(notification.payload), target: target, priority: notification.priority.rawValue)
        let context: [String: JSONValue] = ["pushType": .string(notification.pushType.rawValue), "priority": .int(notification.priority.rawValue)]
        return activityReport(events, center: center, context: context) { event, detail in
            DeviceReport(
                event: event,
                bundleID: notification.bundleID,
                apnsID: notification.apnsID,
                notificationIdentifier: identifier,
                date: clock.now,
                detail: detail
            )
        }
    }

    /// What ActivityKit's events for one push or broadcast come to, as one report: `dropped` with ActivityKit's
    /// reason, else `displayed` with what the activities it changed now show (`removed` when none is left on screen,
    /// after an `end` with a past dismissal date), with the update's alert; `context` adds the push's own details.
    private func activityReport(
        _ events: [ActivityEvent],
        center: ActivityCenter,
        context: [String: JSONValue],
        report: (DeviceReport.Event, [String: JSONValue]) -> DeviceReport
    ) -> [DeviceReport] {
        var detail = context
        detail["activityEvents"] = ReportDetail.strings(events.map(Self.eventName))
        if case .dropped(let reason, let message)? = events.first(where: Self.isDrop) {
            detail["reason"] = .string(reason)
            detail["message"] = .string(message)
            return [report(.dropped, detail)]
        }
        let ids = events.compactMap(Self.activityID)
        let shown = center.snapshots.filter { ids.contains($0.id) }
        detail["activities"] = .array(shown.map(Self.detail))
        if case .updated(_, let alert?, _)? = events.first(where: { if case .updated = $0 { true } else { false } }) {
            detail["alert"] = .object(["title": .string(alert.title), "body": .string(alert.body)])
        }
        return [report(shown.isEmpty ? .removed : .displayed, detail)]
    }

    private static func isDrop(_ event: ActivityEvent) -> Bool {
        if case .dropped = event { true } else { false }
    }

    private static func detail(_ activity: ActivitySnapshot) -> JSONValue {
        let contentState = try? JSONParser.parse(activity.contentState.utf8)
        return .object([
            "id": .string(activity.id),
            "type": .string(activity.typeName),
            "state": .string(activity.state.rawValue),
            "contentState": contentState ?? .string(activity.contentState),
            "pushToken": activity.pushToken.map { .string($0) } ?? .null,
        ])
    }

    private static func activityID(_ event: ActivityEvent) -> String? {
        switch event {
        case .started(let id, _, _), .updated(let id, _, _), .stateChanged(let id, _), .pushTokenChanged(let id, _): id
        case .pushToStartTokenChanged, .dropped: nil
        }
    }

    private static func eventName(_ event: ActivityEvent) -> String {
        switch event {
        case .started: "started"
        case .updated(_, _, let throttled): throttled ? "updated-throttled" : "updated"
        case .stateChanged(_, let state): "state-\(state.rawValue)"
        case .pushTokenChanged: "push-token-changed"
        case .pushToStartTokenChanged: "push-to-start-token-changed"
        case .dropped(let reason, _): "dropped-\(reason)"
        }
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(_ hex: String) -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes)
    }
}
