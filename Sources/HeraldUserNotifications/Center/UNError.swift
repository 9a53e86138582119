import Foundation

/// The error domain of ``UNError``.
public let UNErrorDomain = "UNErrorDomain"

/// An error of the UserNotifications framework (Apple's `UNError`). Codes match the SDK header
/// (spec §C.1).
///
/// Match it as on Apple platforms: `catch let error as UNError where error.code == .attachmentInvalidURL`
/// or `catch UNError.badgeInputInvalid`.
public struct UNError: Error, Sendable, Hashable, CustomNSError, LocalizedError {
    /// The error codes.
    public enum Code: Int, Sendable, Hashable, Codable {
        /// Notifications are not allowed for this app.
        case notificationsNotAllowed = 1
        /// The attachment URL is not a file URL or the file is not readable.
        case attachmentInvalidURL = 100
        /// The attachment's type is not supported.
        case attachmentUnrecognizedType = 101
        /// The attachment is too large (or empty) for its type.
        case attachmentInvalidFileSize = 102
        /// The attachment is not in the center's data store.
        case attachmentNotInDataStore = 103
        /// Moving the attachment into the data store failed.
        case attachmentMoveIntoDataStoreFailed = 104
        /// The attachment's file is corrupt.
        case attachmentCorrupt = 105
        /// A calendar trigger never fires.
        case notificationInvalidNoDate = 1400
        /// The request has no content to show.
        case notificationInvalidNoContent = 1401
        /// A content-providing object is not allowed.
        case contentProvidingObjectNotAllowed = 1500
        /// A content-providing object is invalid.
        case contentProvidingInvalid = 1501
        /// The badge count is invalid.
        case badgeInputInvalid = 1600
    }

    /// The code.
    public let code: Code
    /// A human-readable reason (Herald's addition).
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// `UNErrorDomain`.
    public static var errorDomain: String { UNErrorDomain }
    /// The raw code.
    public var errorCode: Int { code.rawValue }
    /// The reason, or the code name.
    public var errorDescription: String? { reason.isEmpty ? "UNError \(code)" : "UNError \(code): \(reason)" }
}

extension UNError.Code {
    /// Lets `catch UNError.x` match a thrown ``UNError``.
    public static func ~= (code: UNError.Code, error: any Error) -> Bool {
        (error as? UNError)?.code == code
    }
}

extension UNError {
    /// ``Code/notificationsNotAllowed``, for `catch UNError.notificationsNotAllowed`.
    public static var notificationsNotAllowed: Code { .notificationsNotAllowed }
    /// ``Code/attachmentInvalidURL``, for `catch UNError.attachmentInvalidURL`.
    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    /// ``Code/attachmentUnrecognizedType``, for `catch UNError.attachmentUnrecognizedType`.
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    /// ``Code/attachmentInvalidFileSize``, for `catch UNError.attachmentInvalidFileSize`.
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    /// ``Code/attachmentNotInDataStore``, for `catch UNError.attachmentNotInDataStore`.
    public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
    /// ``Code/attachmentMoveIntoDataStoreFailed``, for `catch UNError.attachmentMoveIntoDataStoreFailed`.
    public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
    /// ``Code/attachmentCorrupt``, for `catch UNError.attachmentCorrupt`.
    public static var attachmentCorrupt: Code { .attachmentCorrupt }
    /// ``Code/notificationInvalidNoDate``, for `catch UNError.notificationInvalidNoDate`.
    public static var notificationInvalidNoDate: Code { .notificationInvalidNoDate }
    /// ``Code/notificationInvalidNoContent``, for `catch UNError.notificationInvalidNoContent`.
    public static var notificationInvalidNoContent: Code { .notificationInvalidNoContent }
    /// ``Code/contentProvidingObjectNotAllowed``, for `catch UNError.contentProvidingObjectNotAllowed`.
    public static var contentProvidingObjectNotAllowed: Code { .contentProvidingObjectNotAllowed }
    /// ``Code/contentProvidingInvalid``, for `catch UNError.contentProvidingInvalid`.
    public static var contentProvidingInvalid: Code { .contentProvidingInvalid }
    /// ``Code/badgeInputInvalid``, for `catch UNError.badgeInputInvalid`.
    public static var badgeInputInvalid: Code { .badgeInputInvalid }
}
