import Foundation

/// An object that adds information to notification content (Apple's
/// `UNNotificationContentProviding`, iOS 15): on Apple platforms, Intents' `INSendMessageIntent`
/// and `INStartCallIntent`, which make a communication notification (the sender's name and
/// avatar, the conversation).
///
/// Linux has no Intents framework; a stand-in intent class conforms by being an `NSObject` that
/// adopts `NSSecureCoding`, as Apple's do.
public protocol UNNotificationContentProviding: NSSecureCoding, NSObjectProtocol {}

extension UNNotificationContent {
    /// A copy of this content updated from `provider` (Apple's `updating(from:)`, iOS 15).
    ///
    /// Herald has no sender avatars or conversations to draw, so the copy has the same
    /// values; the call exists so a service extension that makes communication notifications
    /// runs unchanged (docs/device-runtime.md, "Where Herald chooses").
    public func updating(from provider: any UNNotificationContentProviding) throws -> UNNotificationContent {
        UNNotificationContent(value: value)
    }
}
