import Foundation
import HeraldAuth
import HeraldCore
import HeraldServer
import HeraldStore

/// What `herald serve`, `herald device` and `herald send` do for a person on one machine when they are given no
/// credentials: a development signing key made on the first start, a device created in the data directory, and
/// the token of the only device that has the app (README, "Quick start"; docs/local-development.md).
enum LocalDevelopment {
    /// The team id of the development key `herald serve` makes on its first start.
    static let developmentTeamID = "HERALDTEAM"

    /// Makes and registers a development signing key, kept in `<data-dir>/keys/AuthKey_<KEYID>.p8`, when the store
    /// has no signing key and the folder no `.p8` file; returns the kept file, or `nil` when nothing was made.
    static func ensureDevelopmentKey(
        store: any NotificationStore,
        keysDirectory: URL,
        clock: any WallClock
    ) async throws -> (file: URL, keyID: String)? {
        guard try await store.signingKeys().isEmpty, ProviderKeyLocator.keptKeys(in: keysDirectory).isEmpty else { return nil }
        let key = try PrivateSigningKey.generate(teamID: developmentTeamID, keyID: SigningKey.randomID())
        try await store.addSigningKey(
            SigningKeyRecord(key: key, scope: .both, topics: nil, createdAtMilliseconds: clock.nowMilliseconds())
        )
        let file = keysDirectory.appendingPathComponent(ProviderKeyLocator.fileName(keyID: key.keyID))
        try key.write(p8To: file)
        return (file, key.keyID)
    }

    /// Where `herald device` keeps the id and secret of a device it created in the data directory.
    static func credentialsFile(name: String, data: DataDirectoryOptions) -> URL {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return data.url.appendingPathComponent("devices", isDirectory: true).appendingPathComponent("\(safe).json")
    }

    /// The id and secret of the device named `name` in the data directory: read from its credentials file, or made
    /// now (like `herald devices add NAME`) and kept there (mode 0600) for the next run.
    static func deviceCredentials(name: String, data: DataDirectoryOptions) async throws -> (id: String, secret: String, isNew: Bool) {
        try data.requireExisting()
        let file = credentialsFile(name: name, data: data)
        if let saved = try? Data(contentsOf: file) {
            guard let object = try? JSONSerialization.jsonObject(with: saved) as? [String: Any],
                let id = object["id"] as? String, let secret = object["secret"] as? String
            else {
                throw CLIFailure("\(file.path) is not a device's credentials ({\"id\":…,\"secret\":…}); delete it to make a new device")
            }
            return (id, secret, false)
        }
        let credentials = try await addDevice(named: name, data: data)
        let object: [String: Any] = ["id": credentials.device.id, "name": name, "secret": credentials.secret]
        let text = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file.path, contents: text, attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure("cannot write \(file.path)")
        }
        return (credentials.device.id, credentials.secret, true)
    }

    /// The one active device token for `topic`'s app among the data directory's devices.
    ///
    /// The app is the topic without a push-type suffix (`.voip`, `.complication`, …).
    static func onlyToken(topic: String, data: DataDirectoryOptions) async throws -> DeviceToken {
        let configuration = SQLiteStore.Configuration(dataDirectory: data.url.path)
        guard data.databaseURL != nil || FileManager.default.fileExists(atPath: configuration.databasePath) else {
            throw CLIFailure("give --token (there is no Herald data directory at \(data.dataDirectory) to find one in)")
        }
        let bundleID =
            PushType.knownTopicSuffixes.first { topic.hasSuffix($0) && topic.count > $0.count }
            .map { String(topic.dropLast($0.count)) } ?? topic
        let store = try await openStore(data)
        var found: [(token: DeviceToken, device: String)] = []
        do {
            for device in try await store.devices() {
                for token in try await store.tokens(deviceID: device.id)
                where token.bundleID == bundleID && token.unregisteredAtMilliseconds == nil {
                    found.append((token.token, device.name))
                }
            }
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
        switch found.count {
        case 1:
            return found[0].token
        case 0:
            throw CLIFailure("no device has \(bundleID) (run `herald device --app \(bundleID)`), or give --token")
        default:
            let names = found.map(\.device).joined(separator: ", ")
            throw CLIFailure("\(found.count) devices have \(bundleID) (\(names)): give --token (see `herald devices list`)")
        }
    }
}
