import HeraldCore

/// One notification for the provider API: `POST /3/device/<token>` with its `apns-*` headers and payload.
///
/// Values are sent as given, so a test can send what APNs would refuse and read the reason the server answers;
/// only characters that cannot travel in an HTTP/2 header or path are refused locally
/// (``APNSProviderClientError/invalidRequest``). A header whose value is `nil` is not sent.
public struct APNSRequest: Sendable, Hashable {
    /// The device token, hexadecimal as the device reported it; it becomes the last path component.
    public var deviceToken: String
    /// `apns-topic`: the app's bundle id, plus the push type's suffix for some types (`.voip`, …).
    public var topic: String?
    /// `apns-push-type`; APNs infers `alert` when absent.
    public var pushType: PushType?
    /// `apns-priority`; APNs applies 10 when absent (background pushes must say 5).
    public var priority: APNSPriority?
    /// `apns-expiration`: seconds since the UNIX epoch after which APNs stops trying; 0 means "deliver now or never".
    public var expiration: Int64?
    /// `apns-collapse-id`: notifications with the same id replace one another on the device (at most 64 bytes).
    public var collapseID: String?
    /// `apns-id`: a canonical UUID naming the notification; the server makes one up when absent.
    public var apnsID: String?
    /// The JSON payload bytes, sent as the request body.
    public var payload: [UInt8]

    /// Creates a request.
    public init(
        deviceToken: String,
        payload: [UInt8],
        topic: String? = nil,
        pushType: PushType? = nil,
        priority: APNSPriority? = nil,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        apnsID: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }
}
