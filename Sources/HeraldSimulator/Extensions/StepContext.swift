import Foundation
import HeraldUserNotifications

/// What a built-in step may use: the request's identifier (for notes), the app's notification
/// center, the device's clock.
struct StepContext: Sendable {
    let identifier: String
    let center: UNUserNotificationCenter
    let clock: any NotificationClock
    let log: ExtensionRunLog

    /// Runs one step on the content and returns the new content; records a note either way.
    func apply(_ step: ExtensionStep, to content: NotificationContentValue) async -> NotificationContentValue {
        switch step {
        case .rewrite(let rewrite):
            return self.rewrite(rewrite, content)
        case .setCategory(let category):
            var next = content
            next.categoryIdentifier = category
            note(step, "applied", ["category": .string(category)])
            return next
        case .downloadAttachment(let download):
            return await self.download(download, content)
        case .removeDeliveredWithSameKey(let key):
            await removeDelivered(sameAs: key, content)
            return content
        case .delay(let seconds):
            if (try? await clock.sleep(until: clock.now.addingTimeInterval(seconds))) != nil {
                note(step, "applied", ["seconds": .double(seconds)])
            }
            return content
        }
    }

    /// Records a step's result, unless the extension's time ran out (its expiry notes that).
    private func note(_ step: ExtensionStep, _ result: String, _ extra: [String: JSONValue] = [:]) {
        guard !Task.isCancelled else { return }
        var note: [String: JSONValue] = ["step": .string(step.kind), "result": .string(result)]
        note.merge(extra) { $1 }
        log.note(identifier, note)
    }

    private func rewrite(_ rewrite: RewriteStep, _ content: NotificationContentValue) -> NotificationContentValue {
        var extra: [String: String] = [:]
        if let key = rewrite.key {
            guard let raw = PayloadPath.value(at: key, in: content.userInfo) else {
                note(.rewrite(rewrite), "skipped", ["message": .string("the payload has no \"\(key)\"")])
                return content
            }
            let value = PayloadPath.text(raw)
            extra = ["value": value, "name": rewrite.names[value] ?? rewrite.fallback ?? value]
        }
        var next = content
        if let title = rewrite.title { next.title = title.render(content: content, extra: extra) }
        if let subtitle = rewrite.subtitle { next.subtitle = subtitle.render(content: content, extra: extra) }
        if let body = rewrite.body { next.body = body.render(content: content, extra: extra) }
        note(.rewrite(rewrite), "applied", extra.mapValues { .string($0) })
        return next
    }

    private func removeDelivered(sameAs key: String, _ content: NotificationContentValue) async {
        let step = ExtensionStep.removeDeliveredWithSameKey(key: key)
        guard let value = PayloadPath.value(at: key, in: content.userInfo) else {
            note(step, "skipped", ["message": .string("the payload has no \"\(key)\"")])
            return
        }
        let matching = await center.deliveredNotifications()
            .filter { PayloadPath.value(at: key, in: $0.request.content.value.userInfo) == value }
            .map(\.request.identifier)
        center.removeDeliveredNotifications(withIdentifiers: matching)
        note(step, "applied", ["removed": .array(matching.map { .string($0) })])
    }

    private func download(_ download: DownloadStep, _ content: NotificationContentValue) async -> NotificationContentValue {
        let step = ExtensionStep.downloadAttachment(download)
        guard let text = PayloadPath.value(at: download.key, in: content.userInfo)?.stringValue, let url = URL(string: text) else {
            note(step, "skipped", ["message": .string("the payload has no URL under \"\(download.key)\"")])
            return content
        }
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            note(step, "refused", ["url": .string(text), "message": .string("only http and https URLs are downloaded")])
            return content
        }
        let file: URL
        do {
            file = try await AttachmentDownloader.download(url, maximumBytes: download.maximumBytes, timeout: download.timeout)
        } catch {
            note(step, "failed", ["url": .string(text), "message": .string(ReportDetail.describe(error))])
            return content
        }
        do {
            let options = download.typeHint.map { [UNNotificationAttachmentOptionsTypeHintKey: $0] }
            let attachment = try UNNotificationAttachment(identifier: download.identifier, url: file, options: options)
            var next = content
            next.attachments.append(attachment)
            note(step, "applied", ["url": .string(text), "type": .string(attachment.type), "size": .int(attachment.fileSize)])
            return next
        } catch {
            try? FileManager.default.removeItem(at: file)
            note(step, "rejected", ["url": .string(text), "message": .string(ReportDetail.describe(error))])
            return content
        }
    }
}
