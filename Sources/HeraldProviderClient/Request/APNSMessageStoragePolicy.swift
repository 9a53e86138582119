/// A channel's `message-storage-policy`: whether the server keeps a broadcast for devices that subscribe or connect
/// later.
///
/// A wire value: any integer can be sent, so a test can see the server refuse it (`400 BadRequestParams`).
public struct APNSMessageStoragePolicy: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The number in the JSON body.
    public var rawValue: Int

    /// Wraps a number as given.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// 0: no message is kept; broadcasts on the channel must say `apns-expiration: 0`.
    public static let noMessageStored = Self(rawValue: 0)
    /// 1: the most recent message is kept until its `apns-expiration`.
    public static let mostRecentMessageStored = Self(rawValue: 1)

    /// The number, `0` or `1`.
    public var description: String { String(rawValue) }
}
