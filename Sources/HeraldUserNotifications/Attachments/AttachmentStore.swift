import Foundation

/// The center's own attachment store: a directory the center moves attachment files into
/// (spec §C.6: "the system moves the attachment's file to a new location").
struct AttachmentStore: Sendable {
    /// The directory holding the files.
    let directory: URL
    /// Files under this directory are copied instead of moved (the app bundle).
    let bundleDirectory: URL?

    /// Validates an attachment again and moves (or, for bundle files, copies) it into the
    /// store. Files already in the store are kept in place.
    func adopt(_ attachment: UNNotificationAttachment) throws -> UNNotificationAttachment {
        let source = attachment.url.standardizedFileURL
        if source.path.hasPrefix(directory.standardizedFileURL.path + "/") {
            guard FileManager.default.fileExists(atPath: source.path) else {
                throw UNError(.attachmentNotInDataStore, reason: "\(source.lastPathComponent) is no longer in the store")
            }
            return attachment
        }
        _ = try UNNotificationAttachment.validate(url: source, typeHint: attachment.attachmentOptions.typeHint)
        let folder = directory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        let destination = folder.appendingPathComponent(source.lastPathComponent)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if let bundleDirectory, source.path.hasPrefix(bundleDirectory.standardizedFileURL.path + "/") {
                try FileManager.default.copyItem(at: source, to: destination)
            } else {
                try FileManager.default.moveItem(at: source, to: destination)
            }
        } catch {
            throw UNError(.attachmentMoveIntoDataStoreFailed, reason: "\(error)")
        }
        return attachment.relocated(to: destination)
    }

    /// Deletes the stored files of attachments no longer referenced.
    func discard(_ attachments: [UNNotificationAttachment], keeping referenced: Set<URL>) {
        for attachment in attachments where !referenced.contains(attachment.url) {
            let url = attachment.url.standardizedFileURL
            guard url.path.hasPrefix(directory.standardizedFileURL.path + "/") else { continue }
            try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
        }
    }
}
