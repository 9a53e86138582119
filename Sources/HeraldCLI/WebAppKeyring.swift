import Foundation
import HeraldCore
import HeraldWebPush

/// Where `herald device` keeps its web apps' subscriptions — the subscription id and the keys (RFC 8291's private key
/// and auth secret) — so that a restarted device keeps its endpoint and still decrypts what its site's server sends
/// to it.
///
/// The member `webApps` of a JSON file, one entry per origin and `applicationServerKey` (another key is another
/// subscription, as a page that subscribes again with a new key gets one): the device's credentials file
/// (`<data-dir>/devices/NAME.json`) for a device of the data directory, `<data-dir>/devices/<ID>.web-apps.json` for one
/// given with `--id`. The other members of the file are kept as they are. Mode 0600: the keys decrypt the messages.
struct WebAppKeyring {
    /// A kept subscription.
    struct Entry {
        var subscriptionID: DeviceToken
        var keys: WebPushSubscriptionKeys
    }

    /// The file.
    let file: URL

    /// The subscription kept for `origin` with `applicationServerKey`, if any.
    ///
    /// - Throws: ``CLIFailure`` when the file exists and is not JSON, or the entry cannot be read.
    func entry(origin: String, applicationServerKey: String) throws -> Entry? {
        guard let found = try entries().first(where: { Self.matches($0, origin: origin, key: applicationServerKey) }) else { return nil }
        guard let token = found["subscription"]?.stringValue.flatMap({ DeviceToken(hex: $0) }),
            let privateKey = found["privateKey"]?.stringValue.flatMap({ Base64URL.decode($0.utf8) }),
            let auth = found["auth"]?.stringValue.flatMap({ Base64URL.decode($0.utf8) }),
            let keys = WebPushSubscriptionKeys(privateKey: privateKey, authSecret: auth)
        else {
            throw CLIFailure("\(file.path): the web app \(origin)'s kept subscription cannot be read; remove its entry from \"webApps\"")
        }
        return Entry(subscriptionID: token, keys: keys)
    }

    /// Keeps `entry` for `origin` with `applicationServerKey`, replacing the one kept for them.
    func keep(_ entry: Entry, origin: String, applicationServerKey: String) throws {
        try write(
            entry: .object([
                "origin": .string(origin), "applicationServerKey": .string(applicationServerKey), "subscription": .string(entry.subscriptionID.hex),
                "privateKey": .string(Base64URL.encode(entry.keys.privateKeyBytes)), "auth": .string(entry.keys.auth),
            ]),
            origin: origin,
            applicationServerKey: applicationServerKey
        )
    }

    /// Forgets the subscription kept for `origin` with `applicationServerKey` (the device revoked it): the next start
    /// subscribes anew, as a page does after its subscription is gone.
    func forget(origin: String, applicationServerKey: String) throws {
        try write(entry: nil, origin: origin, applicationServerKey: applicationServerKey)
    }

    private func write(entry: JSONValue?, origin: String, applicationServerKey: String) throws {
        var object = try document() ?? JSONObject()
        var kept = try entries().filter { !Self.matches($0, origin: origin, key: applicationServerKey) }.map(JSONValue.object)
        if let entry { kept.append(entry) }
        var members = object.members.filter { $0.key != "webApps" }.map { ($0.key, $0.value) }
        members.append(("webApps", .array(kept)))
        object = JSONObject(members)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = Data(JSONValue.object(object).jsonBytes())
        // Written beside and moved, so that an interrupted write never loses the device's credentials.
        let partial = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: partial.path, contents: text, attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure("cannot write \(partial.path)")
        }
        if rename(partial.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: partial)
            throw CLIFailure("cannot write \(file.path)")
        }
    }

    private func document() throws -> JSONObject? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let object = (try? JSONParser.parse(data))?.objectValue else {
            throw CLIFailure("\(file.path) is not a JSON object; it cannot keep the web apps' subscriptions")
        }
        return object
    }

    private func entries() throws -> [JSONObject] {
        (try document()?["webApps"]?.arrayValue ?? []).compactMap(\.objectValue)
    }

    private static func matches(_ entry: JSONObject, origin: String, key: String) -> Bool {
        entry["origin"]?.stringValue == origin && entry["applicationServerKey"]?.stringValue == key
    }
}
