import Foundation

/// Option key: a UTI hinting the file's type.
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
/// Option key: `Bool`, hide the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
/// Option key: a normalised rectangle (0–1) clipping the thumbnail, as a `CGRect` or as the
/// dictionary `CGRect.dictionaryRepresentation` makes (`X`, `Y`, `Width`, `Height`).
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey = "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
/// Option key: the thumbnail frame of an animated image (a frame number) or of a movie (seconds,
/// or a CMTime dictionary with `value` and `timescale`).
public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// The parsed options of an attachment. Values of the wrong type are ignored.
public struct AttachmentOptions: Sendable, Hashable, Codable {
    /// The type hint (a UTI).
    public var typeHint: String?
    /// Whether the thumbnail is hidden.
    public var thumbnailHidden = false
    /// The normalised clipping rectangle (x, y, width, height), within 0–1.
    public var thumbnailClippingRect: [Double]?
    /// The thumbnail time: a frame number for animated images, seconds for movies.
    public var thumbnailTime: Double?

    /// Parses Apple's option dictionary.
    public init(_ options: [AnyHashable: Any]?) {
        let options = options ?? [:]
        typeHint = options[UNNotificationAttachmentOptionsTypeHintKey] as? String
        thumbnailHidden = (options[UNNotificationAttachmentOptionsThumbnailHiddenKey] as? Bool) ?? false
        thumbnailClippingRect = Self.rect(options[UNNotificationAttachmentOptionsThumbnailClippingRectKey])
        thumbnailTime = Self.time(options[UNNotificationAttachmentOptionsThumbnailTimeKey])
    }

    private static func rect(_ value: Any?) -> [Double]? {
        var numbers: [Double]?
        if let rect = value as? CGRect {
            numbers = [Double(rect.origin.x), Double(rect.origin.y), Double(rect.size.width), Double(rect.size.height)]
        } else if let dictionary = value as? [AnyHashable: Any] {
            let keys = ["X", "Y", "Width", "Height"]
            let parsed = keys.compactMap { key in JSONValue(any: dictionary[key] as Any)?.doubleValue }
            numbers = parsed.count == 4 ? parsed : nil
        }
        guard let numbers, numbers.allSatisfy({ (0...1).contains($0) }), numbers[0] + numbers[2] <= 1, numbers[1] + numbers[3] <= 1
        else { return nil }
        return numbers
    }

    private static func time(_ value: Any?) -> Double? {
        guard let value else { return nil }
        if let dictionary = value as? [AnyHashable: Any],
            let count = JSONValue(any: dictionary["value"] as Any)?.doubleValue,
            let scale = JSONValue(any: dictionary["timescale"] as Any)?.doubleValue, scale > 0
        {
            return count / scale
        }
        guard let number = JSONValue(any: value)?.doubleValue, number >= 0 else { return nil }
        return number
    }
}

/// A media file shown with a notification (Apple's `UNNotificationAttachment`).
///
/// The initializer checks that the URL is a readable file URL, that the type hint or the file
/// name's extension names a supported type, that an image's content is an image, and that its
/// size is within the limit for its kind; it throws the
/// documented ``UNError`` otherwise. When the request is added (or a remote notification is
/// shown), the file is moved into the center's own store and the delivered request's
/// attachment points there.
public final class UNNotificationAttachment: NSObject, Sendable {
    /// The identifier (generated when empty).
    public let identifier: String
    /// The file URL.
    public let url: URL
    /// The UTI of the recognised type.
    public let type: String
    /// The recognised media type.
    public let mediaType: AttachmentMediaType
    /// The size of the file in bytes.
    public let fileSize: Int
    /// The parsed options.
    public let attachmentOptions: AttachmentOptions

    init(identifier: String, url: URL, mediaType: AttachmentMediaType, fileSize: Int, options: AttachmentOptions) {
        self.identifier = identifier
        self.url = url
        self.type = mediaType.uti
        self.mediaType = mediaType
        self.fileSize = fileSize
        self.attachmentOptions = options
        super.init()
    }

    /// Creates an attachment, validating the file. Throws `attachmentInvalidURL` (not a file
    /// URL, unreadable), `attachmentUnrecognizedType`, `attachmentInvalidFileSize` (empty or over
    /// the limit) or `attachmentCorrupt`.
    public convenience init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        let parsed = AttachmentOptions(options)
        let (type, size) = try Self.validate(url: url, typeHint: parsed.typeHint)
        self.init(
            identifier: identifier.isEmpty ? UUID().uuidString : identifier,
            url: url,
            mediaType: type,
            fileSize: size,
            options: parsed
        )
    }

    /// Checks a file as the initializer does and returns its type and size.
    static func validate(url: URL, typeHint: String?) throws -> (AttachmentMediaType, Int) {
        guard url.isFileURL else { throw UNError(.attachmentInvalidURL, reason: "not a file URL: \(url)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: url.path)
        else { throw UNError(.attachmentInvalidURL, reason: "file not readable: \(url.path)") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0 else { throw UNError(.attachmentInvalidFileSize, reason: "empty file") }
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw UNError(.attachmentInvalidURL, reason: "file not readable: \(url.path)")
        }
        let header = ((try? handle.read(upToCount: 64)) ?? nil) ?? Data()
        try? handle.close()
        // Why: "If you don't include this key, the system uses the attachment's filename extension to
        // determine its type" (UNNotificationAttachmentOptionsTypeHintKey). No hint and no known
        // extension: the type is unknown, whatever the bytes are.
        let named = typeHint.map { AttachmentMediaType.named(uti: $0) } ?? AttachmentMediaType.named(fileExtension: url.pathExtension)
        guard let named else {
            throw UNError(.attachmentUnrecognizedType, reason: "no supported type hint or file extension: \(url.lastPathComponent)")
        }
        guard size <= named.kind.maximumSize else {
            throw UNError(.attachmentInvalidFileSize, reason: "\(size) bytes exceeds the \(named.kind) limit")
        }
        // The content must be what the name says (an image of another image format still decodes).
        let sniffed = AttachmentMediaType.recognize(header: [UInt8](header), typeHint: typeHint)
        let type = sniffed.flatMap { $0.kind == named.kind ? $0 : nil } ?? named
        if type.kind == .image {
            let data = (try? Data(contentsOf: url)) ?? Data()
            guard sniffed?.kind == .image, AttachmentMediaType.isStructurallyValid(type, data: data) else {
                throw UNError(.attachmentCorrupt, reason: "\(url.lastPathComponent) is not a valid \(named.uti)")
            }
        }
        return (type, size)
    }

    /// A copy pointing at another file (after the move into the store).
    func relocated(to url: URL) -> UNNotificationAttachment {
        UNNotificationAttachment(identifier: identifier, url: url, mediaType: mediaType, fileSize: fileSize, options: attachmentOptions)
    }

    /// Attachments are equal when identifier, URL and type are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAttachment else { return false }
        return other.identifier == identifier && other.url == url && other.type == type && other.attachmentOptions == attachmentOptions
    }

    /// A hash of the identifier.
    public override var hash: Int { identifier.hashValue }
}
