import Foundation

/// A media type the notification system accepts as an attachment (spec §C.6): named by the
/// type hint option, else by the file name's extension, as Apple's
/// `UNNotificationAttachmentOptionsTypeHintKey` says; the bytes are then checked against it.
public struct AttachmentMediaType: Sendable, Hashable, Codable {
    /// The broad kind, which decides the size limit.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// JPEG, GIF, PNG: at most 10 MB.
        case image
        /// AIFF, WAV, MP3, MPEG-4 audio: at most 5 MB.
        case audio
        /// MPEG, MPEG-2, MPEG-4, AVI: at most 50 MB.
        case movie

        /// The maximum file size in bytes (1 MB = 1,048,576 bytes, a Herald choice).
        public var maximumSize: Int {
            switch self {
            case .image: 10 * 1_048_576
            case .audio: 5 * 1_048_576
            case .movie: 50 * 1_048_576
            }
        }
    }

    /// The kind.
    public let kind: Kind
    /// The uniform type identifier, as `UNNotificationAttachment.type` reports it.
    public let uti: String

    /// JPEG image.
    public static let jpeg = AttachmentMediaType(kind: .image, uti: "public.jpeg")
    /// PNG image.
    public static let png = AttachmentMediaType(kind: .image, uti: "public.png")
    /// GIF image (static or animated).
    public static let gif = AttachmentMediaType(kind: .image, uti: "com.compuserve.gif")
    /// AIFF audio.
    public static let aiff = AttachmentMediaType(kind: .audio, uti: "public.aiff-audio")
    /// WAV audio.
    public static let wav = AttachmentMediaType(kind: .audio, uti: "com.microsoft.waveform-audio")
    /// MP3 audio.
    public static let mp3 = AttachmentMediaType(kind: .audio, uti: "public.mp3")
    /// MPEG-4 audio.
    public static let mpeg4Audio = AttachmentMediaType(kind: .audio, uti: "public.mpeg-4-audio")
    /// MPEG-1 video.
    public static let mpeg = AttachmentMediaType(kind: .movie, uti: "public.mpeg")
    /// MPEG-2 video.
    public static let mpeg2Video = AttachmentMediaType(kind: .movie, uti: "public.mpeg-2-video")
    /// MPEG-4 video.
    public static let mpeg4 = AttachmentMediaType(kind: .movie, uti: "public.mpeg-4")
    /// AVI video.
    public static let avi = AttachmentMediaType(kind: .movie, uti: "public.avi")

    /// Every type, for lookups by UTI and extension.
    static let all: [AttachmentMediaType] = [.jpeg, .png, .gif, .aiff, .wav, .mp3, .mpeg4Audio, .mpeg, .mpeg2Video, .mpeg4, .avi]

    /// The type a UTI names (the type hint option), if it is a supported one.
    public static func named(uti: String) -> AttachmentMediaType? {
        all.first { $0.uti == uti }
    }

    /// The type a file name extension names (case-insensitive), if it is a supported one.
    public static func named(fileExtension: String) -> AttachmentMediaType? {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": .jpeg
        case "png": .png
        case "gif": .gif
        case "aif", "aiff", "aifc": .aiff
        case "wav", "wave": .wav
        case "mp3": .mp3
        case "m4a", "m4b": .mpeg4Audio
        case "mpg", "mpeg", "m1v", "mpe": .mpeg
        case "m2v": .mpeg2Video
        case "mp4", "m4v", "mov": .mpeg4
        case "avi": .avi
        default: nil
        }
    }

    /// Recognises the type from the first bytes of a file. `typeHint` (a UTI) only
    /// disambiguates an MPEG-4 container between audio and video.
    public static func recognize(header bytes: [UInt8], typeHint: String? = nil) -> AttachmentMediaType? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if ascii("FORM") && (ascii("AIFF", at: 8) || ascii("AIFC", at: 8)) { return .aiff }
        if ascii("RIFF") && ascii("WAVE", at: 8) { return .wav }
        if ascii("RIFF") && ascii("AVI ", at: 8) { return .avi }
        if ascii("ID3") { return .mp3 }
        if bytes.count >= 2 && bytes[0] == 0xFF && (bytes[1] & 0xE0) == 0xE0 && (bytes[1] & 0x06) != 0 { return .mp3 }
        if ascii("ftyp", at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            if brand.hasPrefix("M4A") || brand.hasPrefix("M4B") || typeHint == mpeg4Audio.uti { return .mpeg4Audio }
            return .mpeg4
        }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return .mpeg }
        if starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg2Video }
        return nil
    }

    /// Whether the file's structure is plausible for its type (a light check: the PNG header
    /// chunk, the JPEG end marker, the GIF screen descriptor).
    static func isStructurallyValid(_ type: AttachmentMediaType, data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(32))
        switch type {
        case .png:
            return bytes.count >= 16 && Array(bytes[12..<16]) == Array("IHDR".utf8)
        case .jpeg:
            return data.count >= 4 && data.suffix(2) == Data([0xFF, 0xD9])
        case .gif:
            return data.count >= 13
        default:
            return true
        }
    }
}
