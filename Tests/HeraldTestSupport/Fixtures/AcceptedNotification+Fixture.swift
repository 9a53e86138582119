import HeraldCore

extension AcceptedNotification {
    /// The notification tests build: an immediate alert for `token` on `com.example.app` in the sandbox, accepted at
    /// `acceptedAt` (milliseconds); each argument changes one field. The payload is `{"aps":{"alert":"<alert>"}}`
    /// unless `payload` is given.
    public static func fixture(
        token: DeviceToken,
        id: NotificationID = .random(),
        topic: String = "com.example.app",
        bundleID: String = "com.example.app",
        environment: APNSEnvironment = .sandbox,
        pushType: PushType = .alert,
        priority: APNSPriority = .immediate,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        alert: String = "hello",
        acceptedAt: Int64 = 1_700_000_000_000,
        payload: String? = nil
    ) -> AcceptedNotification {
        AcceptedNotification(
            id: id,
            token: token,
            topic: topic,
            bundleID: bundleID,
            environment: environment,
            pushType: pushType,
            priority: priority,
            expiration: expiration,
            collapseID: collapseID,
            payload: Array((payload ?? #"{"aps":{"alert":"\#(alert)"}}"#).utf8),
            acceptedAtMilliseconds: acceptedAt
        )
    }
}
