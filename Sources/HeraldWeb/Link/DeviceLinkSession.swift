import HeraldCore
import HeraldDelivery
import HeraldDeviceLink
import NIOCore
import NIOWebSocket
import Synchronization

/// A device-link connection as the engine sees it: ``deliver(_:)`` writes a `notification` frame,
/// ``refuse(_:code:message:)`` an `error` frame, ``disconnect(code:message:retryAfterMilliseconds:)`` an `error`
/// frame and then a close.
///
/// Callable from any thread (the engine's task): the frame is encoded on the caller's thread and the
/// write hops to the connection's event loop. A closed connection drops it; the engine learns of the
/// close through ``DeliveryEngine/sessionClosed(_:)``.
final class DeviceLinkSession: DeviceSession, ChannelSubscriber {
    let id: DeviceSessionID
    let deviceID: String
    private let channel: any Channel
    /// The last notifications written to this link, so that a report on one of them (the usual case: `received`,
    /// `displayed` right after the notification) is known to be this device's without a store read.
    private let delivered = Mutex(RecentNotifications())

    init(id: DeviceSessionID, deviceID: String, channel: any Channel) {
        self.id = id
        self.deviceID = deviceID
        self.channel = channel
    }

    func deliver(_ delivery: NotificationDelivery) {
        let notification = DeviceLinkNotification(delivery.notification, attempt: delivery.attempt, extensionTimeout: delivery.extensionTimeout)
        delivered.withLock { $0.insert(delivery.notification.id) }
        write(DeviceLinkServerMessage.notification(notification).frame())
    }

    /// Whether this link was sent the notification lately (the last ``RecentNotifications/capacity``); a report on an
    /// older one is checked against the store.
    func wasDelivered(_ id: NotificationID) -> Bool {
        delivered.withLock { $0.contains(id) }
    }

    func disconnect(code: String, message: String, retryAfterMilliseconds: Int64) {
        let error = DeviceLinkError(code: DeviceLinkErrorCode(rawValue: code), message: message, retryAfterMilliseconds: retryAfterMilliseconds)
        // Through the pipeline, so that the connection writes the error and its close frame in order on its loop.
        channel.pipeline.fireUserInboundEventTriggered(DeviceLinkDisconnect(error: error))
    }

    func refuse(_ id: NotificationID, code: String, message: String) {
        let error = DeviceLinkError(code: DeviceLinkErrorCode(rawValue: code), message: message, apnsID: id.text)
        write(DeviceLinkServerMessage.error(error).frame())
    }

    func broadcast(_ broadcast: ChannelBroadcast) {
        // Encoded once for every subscriber of the channel.
        write(broadcast.frame { DeviceLinkServerMessage.broadcast($0).frame() })
    }

    /// Closes the connection with 4000: the device opened a newer link, which replaces this one.
    func replace() {
        channel.pipeline.fireUserInboundEventTriggered(DeviceLinkReplaced())
    }

    /// Writes an `interact` frame (the web console's request).
    func interact(_ interaction: DeviceLinkInteraction) {
        write(DeviceLinkServerMessage.interact(interaction).frame())
    }

    private func write(_ text: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(bytes: text))
        channel.writeAndFlush(frame, promise: nil)
    }
}

/// The ids of the last notifications a link was sent, in a ring allocated on the first one (idle devices hold none).
struct RecentNotifications {
    static let capacity = 64
    private var ids: [NotificationID] = []
    private var next = 0

    mutating func insert(_ id: NotificationID) {
        if ids.count < Self.capacity {
            ids.append(id)
        } else {
            ids[next] = id
            next = (next + 1) % Self.capacity
        }
    }

    func contains(_ id: NotificationID) -> Bool {
        ids.contains(id)
    }
}

/// Sent down a connection's pipeline when a newer link of its device said `hello`: the connection closes with 4000.
struct DeviceLinkReplaced: Sendable {}

/// Sent down a connection's pipeline when the engine closes its session (a fault rule's `deviceOffline`): the
/// connection writes the error, then closes with 1013 (try again later).
struct DeviceLinkDisconnect: Sendable {
    let error: DeviceLinkError
}
