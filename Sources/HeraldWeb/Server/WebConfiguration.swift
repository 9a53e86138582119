import HeraldDeviceLink
import NIOCore

/// How the web port listens, what its HTTP and its device link allow, and who may use it.
public struct WebConfiguration: Sendable {
    /// The address to bind.
    public var host = "127.0.0.1"
    /// The web port (`herald serve --link-port`); 0 picks a free port (see ``WebServer/port``).
    public var port = 2196
    /// Whether `hello` may ask to enrol a new device (`herald serve --allow-enrol`).
    public var allowsEnrolment = false
    /// The largest device-link message accepted; a larger one gets `frame-too-large` and is dropped,
    /// and the connection stays open.
    public var maximumMessageSize = 64 * 1024
    /// The largest `screen` message accepted (a device's whole screen is larger than other messages).
    public var maximumScreenSize = DeviceLinkClientMessage.maximumScreenSize
    /// The largest single WebSocket frame read at all; a larger one closes the connection (code 1009),
    /// because its bytes would have to be held to skip it.
    public var maximumFrameSize = 2 << 20
    /// How long a new WebSocket may wait before its `hello`.
    public var helloTimeout: TimeAmount = .seconds(30)
    /// The largest HTTP request body read (the inspection API reads none); larger gets `413`.
    public var maximumRequestBodySize = 1 << 20
    /// How long an HTTP connection may be idle before it is closed: before its first request, and between requests
    /// (device links have no idle limit).
    public var httpIdleTimeout: TimeAmount = .seconds(60)
    /// How long graceful shutdown waits for connections to close after telling them to.
    public var shutdownGracePeriod: TimeAmount = .seconds(5)
    /// Who may use the API and the device link from a browser (Origin, Host, the API token).
    public var access = WebAccessPolicy()
    /// The most fragments one device-link message may come in; more close the connection (1002).
    public var maximumFragmentCount = 64
    /// How often every device link is checked: one that heard nothing for ``peerTimeout`` is closed, the others
    /// are pinged (a WebSocket ping, which every WebSocket client answers). Zero: never.
    public var peerCheckInterval: TimeAmount = .seconds(60)
    /// How long a device link may hear nothing from its device (no frame, no pong) before it is closed (1001).
    /// Why: a device that vanished without a FIN would otherwise hold its connection until TCP keep-alive gives up (hours).
    public var peerTimeout: TimeAmount = .seconds(150)
    /// Where the endpoints of web push subscriptions made over the device link point (`web-push-subscribed`).
    public var webPush = WebPushEndpoints()
    /// Event-loop threads.
    public var eventLoopThreads = System.coreCount

    /// The default configuration.
    public init() {}
}
