import HeraldUserNotifications

/// How the app's code answers the system: its `UIApplicationDelegate` and the
/// `UNUserNotificationCenterDelegate` it sets at launch — or Swift code supplied by the host.
public struct DelegateManifest: Sendable, Hashable, Codable {
    /// What the app passes to the fetch completion handler of
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public enum FetchCompletion: String, Sendable, Hashable, Codable, CaseIterable {
        /// `.newData`.
        case newData
        /// `.noData`.
        case noData
        /// `.failed`.
        case failed
        /// The app never calls the handler: the 30 s budget runs out.
        case never

        var result: UIBackgroundFetchResult? {
            switch self {
            case .newData: .newData
            case .noData: .noData
            case .failed: .failed
            case .never: nil
            }
        }
    }

    /// The name of a Swift `UIApplicationDelegate` the host supplies in
    /// ``InProcessCode/appDelegates``; the other fields then do not apply.
    public var code: String?
    /// Whether the app sets a notification center delegate at launch. Without one, foreground
    /// notifications use their own options (Apple) and taps go to the app delegate.
    public var setsNotificationDelegate: Bool
    /// Whether that delegate implements `willPresent`. A delegate without it shows nothing in the
    /// foreground (seed 003's app).
    public var implementsWillPresent: Bool
    /// The options `willPresent` answers in the foreground.
    public var willPresent: UNNotificationPresentationOptions
    /// Whether the delegate implements `didReceive` (responses). Without it a tap on a remote
    /// notification goes to `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public var implementsDidReceive: Bool
    /// The fetch completion the app gives.
    public var fetchCompletion: FetchCompletion

    /// Creates a delegate description; the defaults are a modern app that shows notifications in
    /// the foreground and handles responses.
    public init(
        setsNotificationDelegate: Bool = true,
        implementsWillPresent: Bool = true,
        willPresent: UNNotificationPresentationOptions = [.banner, .list, .sound, .badge],
        implementsDidReceive: Bool = true,
        fetchCompletion: FetchCompletion = .newData
    ) {
        self.code = nil
        self.setsNotificationDelegate = setsNotificationDelegate
        self.implementsWillPresent = implementsWillPresent
        self.willPresent = willPresent
        self.implementsDidReceive = implementsDidReceive
        self.fetchCompletion = fetchCompletion
    }

    /// An app delegate written in Swift, supplied by the host under `code`.
    public init(code: String) {
        self.init()
        self.code = code
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case code, setsNotificationDelegate, implementsWillPresent, willPresent, implementsDidReceive, fetchCompletion
    }

    /// Decodes a delegate description.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        setsNotificationDelegate = try container.decode(.setsNotificationDelegate, or: true)
        implementsWillPresent = try container.decode(.implementsWillPresent, or: true)
        willPresent = UNNotificationPresentationOptions(
            try container.decodeNames(.willPresent, table: ManifestNames.presentationOptions, or: ["banner", "list", "sound", "badge"])
        )
        implementsDidReceive = try container.decode(.implementsDidReceive, or: true)
        let completions: KeyValuePairs<String, FetchCompletion> = ["newData": .newData, "noData": .noData, "failed": .failed, "never": .never]
        fetchCompletion = try container.decodeName(.fetchCompletion, table: completions, or: "newData")
        if code != nil {
            for key in CodingKeys.allCases where key != .code && container.contains(key) {
                throw container.invalid(key, "not used with \"code\" (the Swift app delegate decides)")
            }
        }
    }

    /// Encodes either `code` or the behaviour fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let code {
            try container.encode(code, forKey: .code)
            return
        }
        try container.encode(setsNotificationDelegate, forKey: .setsNotificationDelegate)
        try container.encode(implementsWillPresent, forKey: .implementsWillPresent)
        try container.encode(ManifestNames.names(of: willPresent, in: ManifestNames.presentationOptions), forKey: .willPresent)
        try container.encode(implementsDidReceive, forKey: .implementsDidReceive)
        try container.encode(fetchCompletion.rawValue, forKey: .fetchCompletion)
    }
}
