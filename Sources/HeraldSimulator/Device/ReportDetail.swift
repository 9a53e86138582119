import Foundation
import HeraldUserNotifications

/// Builders for the JSON details of reports.
enum ReportDetail {
    /// What a notification says: title, subtitle, body, category, thread, badge, sound, attachments.
    static func content(_ content: NotificationContentValue) -> [String: JSONValue] {
        [
            "title": .string(content.title),
            "subtitle": .string(content.subtitle),
            "body": .string(content.body),
            "categoryIdentifier": .string(content.categoryIdentifier),
            "threadIdentifier": .string(content.threadIdentifier),
            "badge": content.badge.map { .int($0) } ?? .null,
            "sound": content.sound.map { .string($0.displayName) } ?? .null,
            "attachments": .array(
                content.attachments.map { attachment in
                    .object(["identifier": .string(attachment.identifier), "type": .string(attachment.type), "size": .int(attachment.fileSize)])
                }
            ),
        ]
    }

    /// A `dropped` detail.
    static func drop(_ reason: DropReason, _ message: String, _ notification: IncomingNotification) -> [String: JSONValue] {
        [
            "reason": .string(reason.rawValue),
            "message": .string(message),
            "pushType": .string(notification.pushType.rawValue),
            "priority": .int(notification.priority.rawValue),
        ]
    }

    /// Names as a JSON array.
    static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    /// An encodable value as JSON (dates as ISO 8601).
    static func encoded(_ value: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .null }
        return json
    }

    /// An error's message (`UNError`s say their code and reason).
    static func describe(_ error: any Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? "\(error)"
    }

    /// The presentation option names.
    static func presentation(_ options: UNNotificationPresentationOptions) -> JSONValue {
        strings(ManifestNames.names(of: options, in: ManifestNames.presentationOptions))
    }

    /// The name of a fetch result.
    static func fetchResult(_ result: UIBackgroundFetchResult?) -> JSONValue {
        switch result {
        case .newData: .string("newData")
        case .noData: .string("noData")
        case .failed: .string("failed")
        case nil: .null
        }
    }

    /// The service extension's outcome as a name (and reason).
    static func outcome(_ outcome: ServiceExtensionOutcome) -> (name: String, reason: String?) {
        switch outcome {
        case .notRun(let reason): ("notRun", reason)
        case .completed: ("completed", nil)
        case .expiredWithBestAttempt: ("expiredWithBestAttempt", nil)
        case .expiredShowingOriginal: ("expiredShowingOriginal", nil)
        case .failedShowingOriginal(let reason): ("failedShowingOriginal", reason)
        }
    }
}
