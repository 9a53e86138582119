/// An `error` frame: what the server refused, and why.
///
/// It is also the error that decoding a frame throws, carrying the request `id` (and `apnsID`) of the frame
/// when they could be read, so a server can send the failure back exactly as it was thrown.
public struct DeviceLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; match it against the static values of ``DeviceLinkErrorCode``.
    public var code: DeviceLinkErrorCode
    /// What went wrong in words, for people.
    public var message: String
    /// The `id` of the request the error answers, when it had one.
    public var id: String?
    /// The `apns-id` of the notification the error is about, when it is about one.
    public var apnsID: String?
    /// `retryAfterMs`: how long the device should wait before it connects again (with `device-offline`), if the
    /// server says.
    public var retryAfterMilliseconds: Int64?

    /// Creates an error.
    public init(code: DeviceLinkErrorCode, message: String, id: String? = nil, apnsID: String? = nil, retryAfterMilliseconds: Int64? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.apnsID = apnsID
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    /// The same error with another message.
    public func with(message: String) -> DeviceLinkError {
        var copy = self
        copy.message = message
        return copy
    }

    /// The same error with another code and message.
    public func with(code: DeviceLinkErrorCode, message: String) -> DeviceLinkError {
        var copy = self
        copy.code = code
        copy.message = message
        return copy
    }

    /// The code, then the message.
    public var description: String { "\(code): \(message)" }
}
