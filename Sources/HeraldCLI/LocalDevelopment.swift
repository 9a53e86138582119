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
            guard let object = (try? JSONParser.parse(saved))?.objectValue,
                let id = object["id"]?.stringValue, let secret = object["secret"]?.stringValue
            else {
                throw CLIFailure("\(file.path) is not a device's credentials ({\"id\":…,\"secret\":…}); delete it to make a new device")
            }
            return (id, secret, false)
        }
        let credentials = try await addDevice(named: name, data: data)
        let object: JSONValue = ["id": .string(credentials.device.id), "name": .string(name), "secret": .string(credentials.secret)]
        let text = Data(object.jsonBytes())
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file.path, contents: text, attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure("cannot write \(file.path)")
        }
        return (credentials.device.id, credentials.secret, true)
    }

    /// The one active token of `kind` for `topic`'s app among the data directory's devices: the device token for
    /// an alert (or any push but `liveactivity`), a push-to-start token for `event: start`, an activity token for
    /// `update` and `end`; `activityType`, when given, narrows the activity kinds to that type.
    ///
    /// The app is the topic without a push-type suffix (`.voip`, `.push-type.liveactivity`, …). Devices are counted,
    /// not tokens: a device with an activity type holds three kinds of token for one app.
    static func onlyToken(
        topic: String,
        kind: TokenKind = .device,
        activityType: String? = nil,
        data: DataDirectoryOptions
    ) async throws -> TokenRecord {
        let configuration = SQLiteStore.Configuration(dataDirectory: data.url.path)
        guard data.databaseURL != nil || FileManager.default.fileExists(atPath: configuration.databasePath) else {
            throw CLIFailure("give --token (there is no Herald data directory at \(data.dataDirectory) to find one in)")
        }
        let bundleID =
            PushType.knownTopicSuffixes.first { topic.hasSuffix($0) && topic.count > $0.count }
            .map { String(topic.dropLast($0.count)) } ?? topic
        let store = try await openStore(data)
        var found: [(token: TokenRecord, device: String)] = []
        do {
            for device in try await store.devices() {
                for token in try await store.tokens(deviceID: device.id)
                where token.bundleID == bundleID && token.isActive && token.kind == kind
                    && (activityType == nil || token.activityType == activityType)
                {
                    found.append((token, device.name))
                }
            }
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
        return try TokenChoice(bundleID: bundleID, kind: kind, activityType: activityType).only(found)
    }
}

/// What `herald send` looks for when it is given no `--token`, and what it says when there is not exactly one.
struct TokenChoice {
    var bundleID: String
    var kind: TokenKind
    var activityType: String?

    /// The one token found; one line saying what to do for none, or for several.
    func only(_ found: [(token: TokenRecord, device: String)]) throws -> TokenRecord {
        var seen: Set<String> = []
        let devices = found.filter { seen.insert($0.token.deviceID ?? $0.device).inserted }.map(\.device)
        switch (found.count, devices.count) {
        case (1, _):
            return found[0].token
        case (0, _):
            throw CLIFailure("no device has \(what) (\(hint)), or give --token")
        case (_, 1):
            let several =
                switch kind {
                case .pushToStart:
                    "\(found.count) push-to-start tokens of \(bundleID) (\(found.compactMap(\.token.activityType).joined(separator: ", "))): "
                        + "give --attributes-type or --token"
                case .activity: "\(found.count) activity tokens of \(bundleID): give --token"
                default: "\(found.count) tokens of \(bundleID): give --token"
                }
            throw CLIFailure("\(devices[0]) has \(several) (see `herald devices list`)")
        default:
            throw CLIFailure("\(devices.count) devices have \(what) (\(devices.joined(separator: ", "))): give --token (see `herald devices list`)")
        }
    }

    /// What is looked for, in words.
    private var what: String {
        let type = activityType.map { " for \($0)" } ?? ""
        switch kind {
        case .pushToStart: return "a push-to-start token of \(bundleID)\(type)"
        case .activity: return "an activity token of \(bundleID)\(type)"
        default: return bundleID
        }
    }

    /// How to make one.
    private var hint: String {
        switch kind {
        case .pushToStart: return "run `herald device --manifest FILE` with an activity type for it, docs/device-manifest.md"
        case .activity: return "start an activity with `herald send --event start … --input-push-token`"
        default: return "run `herald device --app \(bundleID)`"
        }
    }
}
