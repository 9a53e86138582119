import ArgumentParser
import Foundation
import HeraldCore

/// `herald send --web-push SUBSCRIPTION.json`: the options of a web push, sent to a subscription's endpoint instead of
/// to a provider port (docs/herald-send.md, "Web push"; docs/web-push.md).
struct WebPushSendOptions: ParsableArguments {
    @Option(
        name: .customLong("web-push"),
        help: """
            Send a web push to this subscription: a file (or - for standard input) with its toJSON(), \
            {"endpoint":…,"expirationTime":null,"keys":{"p256dh":…,"auth":…}}.
            """
    )
    var subscription: String?

    @Option(
        name: .customLong("vapid-key"),
        help: """
            With --web-push: the application server's P-256 private key (PEM; make one with \
            `openssl ecparam -name prime256v1 -genkey -noout -out vapid.pem`; a .p8 works too).
            """
    )
    var vapidKey: String?

    @Option(help: "With --web-push: the VAPID sub claim, a mailto: address or an https: URL (Apple requires one).")
    var subject: String?

    @Option(help: "With --web-push: TTL, seconds the push service keeps the message; 0 is now or never (default: 2419200, 28 days).")
    var ttl: Int64?

    @Option(help: "With --web-push: Urgency, very-low, low, normal or high (default: none, which means normal).")
    var urgency: String?

    @Option(help: "With --web-push: the URL a declarative notification opens on tap (notification.navigate).")
    var navigate: String?

    @Flag(help: "With --web-push: send Safari's declarative form, {\"web_push\":8030,\"notification\":{…}}.")
    var declarative = false

    /// The TTL sent when `--ttl` is not given: 28 days, under the 30 days Herald and APNs keep a message at most, so
    /// that it is kept as sent and not cut; 0 would drop every push to a device that is not reachable at that moment.
    static let defaultTTL: Int64 = 2_419_200

    /// The longest subscription file or key file read: a subscription's JSON is about 250 bytes, a PEM key about 300.
    static let maximumFileLength = 64 * 1024

    /// The first web push option given without `--web-push`, by its name; `nil` when none is.
    var strayOption: String? {
        let given: [(String, Bool)] = [
            ("--vapid-key", vapidKey != nil), ("--subject", subject != nil), ("--ttl", ttl != nil), ("--urgency", urgency != nil),
            ("--navigate", navigate != nil), ("--declarative", declarative),
        ]
        return subscription == nil ? given.first(where: \.1)?.0 : nil
    }

    /// A file's bytes, or standard input's for `-`, refused over ``maximumFileLength``.
    static func read(_ path: String, what: String) throws -> [UInt8] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readData(ofLength: maximumFileLength + 1)
        } else {
            try SystemError.requireReadable(path)
            guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIFailure("\(path): cannot be read") }
            defer { try? handle.close() }
            data = handle.readData(ofLength: maximumFileLength + 1)
        }
        guard data.count <= maximumFileLength else {
            throw CLIFailure("\(path): over \(maximumFileLength) bytes; \(what) is a few hundred")
        }
        return Array(data)
    }
}

/// A push subscription as its `toJSON()` gives it to a site's server: the endpoint and the keys to encrypt for.
struct WebPushSubscriptionJSON: Equatable {
    /// The push resource's URL, where messages are posted.
    var endpoint: String
    /// The user agent's public key, base64url (RFC 8291's `ua_public`).
    var p256dh: String
    /// The authentication secret, base64url.
    var auth: String

    /// Reads `{"endpoint":…,"keys":{"p256dh":…,"auth":…}}`; `source` names the file in messages.
    ///
    /// - Throws: ``CLIFailure`` naming what is missing or not a string.
    init(bytes: [UInt8], source: String) throws {
        guard let document = try? JSONParser.parse(bytes), let object = document.objectValue else {
            throw CLIFailure("\(source): not a JSON object (a subscription's toJSON(): {\"endpoint\":…,\"keys\":{\"p256dh\":…,\"auth\":…}})")
        }
        guard let endpoint = object["endpoint"]?.stringValue else { throw CLIFailure("\(source): no \"endpoint\" string") }
        guard let keys = object["keys"]?.objectValue else { throw CLIFailure("\(source): no \"keys\" object (with p256dh and auth)") }
        guard let p256dh = keys["p256dh"]?.stringValue else { throw CLIFailure("\(source): no \"keys.p256dh\" string") }
        guard let auth = keys["auth"]?.stringValue else { throw CLIFailure("\(source): no \"keys.auth\" string") }
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}
