import HeraldCore
import HeraldStore

/// The filters of `GET /api/v1/notifications` (and its `wait`) besides `token` (docs/inspection-api.json): what a test written in any
/// language asks of the notifications it sent.
struct NotificationFilter: Sendable {
    /// `topic`: the `apns-topic`, exactly.
    var topic: String?
    /// `state`: `stored`, `delivered`, `expired`, `replaced` or `discarded`.
    var state: NotificationState?
    /// `since`: accepted at or after this time, milliseconds since the epoch.
    var sinceMilliseconds: Int64?
    /// `collapseID`: the `apns-collapse-id`, exactly.
    var collapseID: String?
    /// `text`: the payload's JSON text contains this, as sent (case and escapes matter).
    var text: [UInt8]?
    /// `uniqueID`: the sandbox's `apns-unique-id` the provider was answered with (lowercase).
    var uniqueID: String?

    /// The most characters (Unicode scalars, as JSON Schema's `maxLength` counts them) a `text` filter may have.
    static let maximumTextLength = 64

    /// Reads the filters from a request's query; throws ``WebError`` (400) for a malformed one.
    init(_ request: WebRequest) throws(WebError) {
        topic = request.queryValue("topic")
        if let name = request.queryValue("state") {
            let state = NotificationState(rawValue: name)
            guard NotificationState.allKnown.contains(state) else {
                throw .badRequest("state must be one of \(NotificationState.allKnown.map(\.rawValue).joined(separator: ", "))")
            }
            self.state = state
        }
        if let since = request.queryValue("since") {
            guard let milliseconds = Int64(since), (0..<9_000_000_000_000_000).contains(milliseconds) else {
                throw .badRequest("since must be milliseconds since the epoch (0 to 8999999999999999)")
            }
            sinceMilliseconds = milliseconds
        }
        collapseID = request.queryValue("collapseID")
        if let text = request.queryValue("text") {
            guard !text.isEmpty, text.unicodeScalars.count <= Self.maximumTextLength else {
                throw .badRequest("text must be 1 to \(Self.maximumTextLength) characters")
            }
            self.text = Array(text.utf8)
        }
        if let uniqueID = request.queryValue("uniqueID") {
            guard let id = NotificationID(uniqueID) else { throw .badRequest("uniqueID must be an apns-unique-id (a UUID)") }
            self.uniqueID = id.key
        }
    }

    /// Whether no filter is given.
    var isEmpty: Bool {
        topic == nil && state == nil && sinceMilliseconds == nil && collapseID == nil && text == nil && uniqueID == nil
    }

    /// Whether a notification passes every filter given.
    func matches(_ stored: StoredNotification) -> Bool {
        let notification = stored.notification
        if let topic, notification.topic != topic { return false }
        if let state, stored.state != state { return false }
        if let sinceMilliseconds, notification.acceptedAtMilliseconds < sinceMilliseconds { return false }
        if let collapseID, notification.collapseID != collapseID { return false }
        if let text, notification.payload.firstRange(of: text) == nil { return false }
        if let uniqueID, notification.environment != .sandbox || notification.id.uniqueID.text != uniqueID { return false }
        return true
    }
}
