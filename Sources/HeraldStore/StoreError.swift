/// An error from a ``NotificationStore``.
///
/// Match it against the static values (`error == .overloaded`): equality compares the kind only, never
/// ``detail``, so new kinds and better messages can be added without breaking callers.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case overloaded
        case storeFull
        case shutDown
        case unknownDeviceToken
        case unknownDevice
        case duplicateDeviceToken
        case tooManyTokens
        case unknownSigningKey
        case duplicateSigningKey
        case unknownApp
        case appOfAnotherTeam
        case invalidRecord
        case corruptRecord
        case newerSchema
        case databaseBusy
        case unavailable
        case database
    }

    private let code: Code

    /// What went wrong in words, for logs and the CLI's one-line message; not part of equality.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// Too many notifications are waiting for a commit; the gateway answers `503 ServiceUnavailable`.
    public static let overloaded = StoreError(.overloaded)
    /// The store has no room: its disk budget is used up by notifications waiting for their devices, or the disk
    /// is full (`SQLITE_FULL`); nothing of the failed write was kept. The gateway answers `503 ServiceUnavailable`.
    public static let storeFull = StoreError(.storeFull)
    /// The store was shut down.
    public static let shutDown = StoreError(.shutDown)
    /// The device token is not in the registry.
    public static let unknownDeviceToken = StoreError(.unknownDeviceToken)
    /// No device has this id.
    public static let unknownDevice = StoreError(.unknownDevice)
    /// The device token is already registered.
    public static let duplicateDeviceToken = StoreError(.duplicateDeviceToken)
    /// The device holds as many active Live Activity tokens as it may.
    public static let tooManyTokens = StoreError(.tooManyTokens)
    /// No signing key has this key id.
    public static let unknownSigningKey = StoreError(.unknownSigningKey)
    /// A signing key with this key id already exists.
    public static let duplicateSigningKey = StoreError(.duplicateSigningKey)
    /// No app has this bundle id.
    public static let unknownApp = StoreError(.unknownApp)
    /// The app already belongs to another team; ``detail`` names it.
    public static let appOfAnotherTeam = StoreError(.appOfAnotherTeam)
    /// A value broke one of the schema's rules (a CHECK or NOT NULL constraint); ``detail`` says which.
    public static let invalidRecord = StoreError(.invalidRecord)
    /// A stored row could not be read back into a value (the file was edited by hand, or is damaged).
    public static let corruptRecord = StoreError(.corruptRecord)
    /// The database was migrated by a newer Herald; this version refuses to write to it.
    public static let newerSchema = StoreError(.newerSchema)
    /// Another process held the database lock for longer than the busy timeout.
    public static let databaseBusy = StoreError(.databaseBusy)
    /// The database server cannot be reached (PostgreSQL: the connection was lost or refused); the gateway answers
    /// `503 ServiceUnavailable` until it is back. Nothing of the failed write was kept.
    public static let unavailable = StoreError(.unavailable)
    /// Any other database failure (I/O, disk full, a closed connection); ``detail`` has SQLite's message.
    public static let database = StoreError(.database)

    /// The same kind of error with a message.
    public func with(detail: String) -> StoreError {
        StoreError(code, detail: detail)
    }

    /// Whether two errors are of the same kind (their details may differ).
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The kind in words, then the detail.
    public var description: String {
        let name: String
        switch code {
        case .overloaded: name = "the store is overloaded"
        case .storeFull: name = "the store is full"
        case .shutDown: name = "the store is shut down"
        case .unknownDeviceToken: name = "unknown device token"
        case .unknownDevice: name = "unknown device"
        case .duplicateDeviceToken: name = "device token already registered"
        case .tooManyTokens: name = "too many active activity tokens on the device"
        case .unknownSigningKey: name = "unknown signing key"
        case .duplicateSigningKey: name = "signing key already exists"
        case .unknownApp: name = "unknown app"
        case .appOfAnotherTeam: name = "the app belongs to another team"
        case .invalidRecord: name = "invalid record"
        case .corruptRecord: name = "corrupt record"
        case .newerSchema: name = "the database was created by a newer version of Herald"
        case .databaseBusy: name = "the database is locked by another process"
        case .unavailable: name = "the database cannot be reached"
        case .database: name = "database error"
        }
        guard let detail else { return name }
        return "\(name): \(detail)"
    }
}
