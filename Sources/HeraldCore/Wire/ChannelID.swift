import Foundation

/// Rules for broadcast channel ids (`apns-channel-id`, docs/broadcast.md).
public enum ChannelID {
    /// Whether a channel id is well formed: base64 of 1 to 48 bytes, as it encodes them (with its padding), so that one
    /// id has one spelling (Herald's ids are 16 bytes; Apple documents base64 without a length, so Herald takes any
    /// reasonable one). docs/inspection-api.json writes the same rule as a pattern.
    public static func isWellFormed(_ text: String) -> Bool {
        guard (4...64).contains(text.utf8.count), let bytes = Data(base64Encoded: text) else { return false }
        return !bytes.isEmpty && bytes.base64EncodedString() == text
    }
}
