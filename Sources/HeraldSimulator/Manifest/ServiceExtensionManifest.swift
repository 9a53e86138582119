import Foundation

/// The app's notification service extension: Swift code supplied by the host, or built-in steps
/// run in order.
///
/// Either way the runtime's rules apply (spec §C.7): the extension runs only for alerts with
/// `mutable-content: 1` when the app may show alerts, within the 30 s budget.
public struct ServiceExtensionManifest: Sendable, Hashable, Codable {
    /// The extension's name, for reports and the console.
    public var name: String
    /// The name of a Swift extension the host supplies in ``InProcessCode/serviceExtensions``.
    public var code: String?
    /// The built-in steps, run in order (when ``code`` is `nil`).
    public var steps: [ExtensionStep]
    /// Whether the built-in extension hands over its best attempt (the content after the steps
    /// finished so far) in `serviceExtensionTimeWillExpire()`, as Xcode's template does; if not,
    /// the original content is shown after the budget.
    public var bestAttemptOnExpiry: Bool

    /// A built-in extension.
    public init(name: String = "NotificationService", steps: [ExtensionStep], bestAttemptOnExpiry: Bool = true) {
        self.name = name
        self.code = nil
        self.steps = steps
        self.bestAttemptOnExpiry = bestAttemptOnExpiry
    }

    /// An extension written in Swift, supplied by the host under `code`.
    public init(name: String = "NotificationService", code: String) {
        self.name = name
        self.code = code
        self.steps = []
        self.bestAttemptOnExpiry = true
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, code, steps, bestAttemptOnExpiry
    }

    /// Decodes the extension: exactly one of `code` and `steps`.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(.name, or: "NotificationService")
        code = try container.decodeIfPresent(String.self, forKey: .code)
        steps = try container.decode(.steps, or: [])
        bestAttemptOnExpiry = try container.decode(.bestAttemptOnExpiry, or: true)
        if code != nil {
            for key in [CodingKeys.steps, .bestAttemptOnExpiry] where container.contains(key) {
                throw container.invalid(key, "not used with \"code\" (the Swift extension decides)")
            }
        } else if steps.isEmpty {
            throw container.invalid(.steps, "give \"steps\" (at least one) or \"code\"", code: .missingField)
        }
    }

    /// Encodes `name` and either `code` or the steps.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if let code {
            try container.encode(code, forKey: .code)
        } else {
            try container.encode(steps, forKey: .steps)
            try container.encode(bestAttemptOnExpiry, forKey: .bestAttemptOnExpiry)
        }
    }
}

/// One step of the built-in service extension.
///
/// In JSON each step is an object whose `kind` names it, with the step's own fields.
public enum ExtensionStep: Sendable, Hashable, Codable {
    /// Rewrites title, subtitle and/or body from templates, with a name looked up in a table by a
    /// payload value (seed 000: sender id → contact name).
    case rewrite(RewriteStep)
    /// Sets the category identifier (seed 002), which chooses actions and content extension.
    case setCategory(String)
    /// Downloads the URL found in a payload key and attaches the file (seed 004).
    case downloadAttachment(DownloadStep)
    /// Removes delivered notifications whose payload carries the same value under `key` (seed
    /// 001's replacement without `apns-collapse-id`).
    case removeDeliveredWithSameKey(key: String)
    /// Takes this many seconds on the device's clock (more than the budget exercises
    /// `serviceExtensionTimeWillExpire()`).
    case delay(seconds: Double)

    /// The step's `kind`.
    public var kind: String {
        switch self {
        case .rewrite: "rewrite"
        case .setCategory: "setCategory"
        case .downloadAttachment: "downloadAttachment"
        case .removeDeliveredWithSameKey: "removeDeliveredWithSameKey"
        case .delay: "delay"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind
        case key, names, fallback, title, subtitle, body
        case category
        case identifier, typeHint, maximumBytes, timeout
        case seconds
    }

    private static let fields: [String: [CodingKeys]] = [
        "rewrite": [.kind, .key, .names, .fallback, .title, .subtitle, .body],
        "setCategory": [.kind, .category],
        "downloadAttachment": [.kind, .key, .identifier, .typeHint, .maximumBytes, .timeout],
        "removeDeliveredWithSameKey": [.kind, .key],
        "delay": [.kind, .seconds],
    ]

    /// Decodes a step by its `kind`; fields of other kinds are refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        guard let allowed = Self.fields[kind] else {
            throw container.invalid(.kind, "unknown step \"\(kind)\"; allowed: \(Self.fields.keys.sorted().joined(separator: ", "))")
        }
        let present = try decoder.container(keyedBy: AnyCodingKey.self).allKeys
        for key in present.sorted(by: { $0.stringValue < $1.stringValue }) where !allowed.map(\.stringValue).contains(key.stringValue) {
            throw ManifestError(
                .unknownField,
                field: ManifestError.path(container.codingPath + [key]),
                reason: "not a field of a \"\(kind)\" step; its fields: \(allowed.map(\.stringValue).joined(separator: ", "))"
            )
        }
        switch kind {
        case "rewrite":
            self = .rewrite(try RewriteStep(from: container))
        case "setCategory":
            self = .setCategory(try container.decode(String.self, forKey: .category))
        case "downloadAttachment":
            self = .downloadAttachment(try DownloadStep(from: container))
        case "removeDeliveredWithSameKey":
            self = .removeDeliveredWithSameKey(key: try container.decode(.key, or: "custom-payload-id"))
        default:
            let seconds = try container.decode(Double.self, forKey: .seconds)
            guard seconds >= 0, seconds.isFinite else { throw container.invalid(.seconds, "must be a number of seconds ≥ 0") }
            self = .delay(seconds: seconds)
        }
    }

    /// Encodes the step with its `kind`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .rewrite(let step):
            try container.encodeIfPresent(step.key, forKey: .key)
            if !step.names.isEmpty { try container.encode(step.names, forKey: .names) }
            try container.encodeIfPresent(step.fallback, forKey: .fallback)
            try container.encodeIfPresent(step.title, forKey: .title)
            try container.encodeIfPresent(step.subtitle, forKey: .subtitle)
            try container.encodeIfPresent(step.body, forKey: .body)
        case .setCategory(let category):
            try container.encode(category, forKey: .category)
        case .downloadAttachment(let step):
            try container.encode(step.key, forKey: .key)
            try container.encode(step.identifier, forKey: .identifier)
            try container.encodeIfPresent(step.typeHint, forKey: .typeHint)
            try container.encode(step.maximumBytes, forKey: .maximumBytes)
            try container.encode(step.timeout, forKey: .timeout)
        case .removeDeliveredWithSameKey(let key):
            try container.encode(key, forKey: .key)
        case .delay(let seconds):
            try container.encode(seconds, forKey: .seconds)
        }
    }
}

/// The fields of a `rewrite` step.
public struct RewriteStep: Sendable, Hashable {
    /// The payload key (or dotted path) whose value is looked up in ``names``; `nil` for a
    /// rewrite with fixed templates.
    public var key: String?
    /// The lookup table: payload value → name (`{name}`).
    public var names: [String: String]
    /// The name when the value is not in the table; `nil` uses the value itself.
    public var fallback: String?
    /// The new title, if rewritten.
    public var title: ContentTemplate?
    /// The new subtitle, if rewritten.
    public var subtitle: ContentTemplate?
    /// The new body, if rewritten.
    public var body: ContentTemplate?

    /// Creates a rewrite step.
    public init(
        key: String? = nil,
        names: [String: String] = [:],
        fallback: String? = nil,
        title: ContentTemplate? = nil,
        subtitle: ContentTemplate? = nil,
        body: ContentTemplate? = nil
    ) {
        self.key = key
        self.names = names
        self.fallback = fallback
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    init(from container: KeyedDecodingContainer<ExtensionStep.CodingKeys>) throws {
        key = try container.decodeIfPresent(String.self, forKey: .key)
        names = try container.decode(.names, or: [:])
        fallback = try container.decodeIfPresent(String.self, forKey: .fallback)
        if key == nil {
            for field in [ExtensionStep.CodingKeys.names, .fallback] where container.contains(field) {
                throw container.invalid(field, "needs \"key\" (the payload key whose value is looked up)")
            }
        }
        let extra: Set<String> = key == nil ? [] : ["name", "value"]
        func template(_ field: ExtensionStep.CodingKeys) throws -> ContentTemplate? {
            guard let text = try container.decodeIfPresent(String.self, forKey: field) else { return nil }
            do {
                return try ContentTemplate(text, extraPlaceholders: extra)
            } catch let error as ContentTemplate.Invalid {
                throw container.invalid(field, error.reason)
            }
        }
        title = try template(.title)
        subtitle = try template(.subtitle)
        body = try template(.body)
        if title == nil && subtitle == nil && body == nil {
            throw container.invalid(.body, "a rewrite needs at least one of \"title\", \"subtitle\", \"body\"", code: .missingField)
        }
    }
}

/// The fields of a `downloadAttachment` step.
public struct DownloadStep: Sendable, Hashable {
    /// The payload key (or dotted path) holding the URL (seed 004: `image`).
    public var key: String
    /// The attachment's identifier.
    public var identifier: String
    /// A UTI hint for the file's type (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var typeHint: String?
    /// The largest body accepted, in bytes (default 50 MiB, the largest attachment limit).
    public var maximumBytes: Int
    /// The request's timeout in seconds (default 30, the extension's budget).
    public var timeout: Double

    /// Creates a download step.
    public init(key: String, identifier: String = "attachment", typeHint: String? = nil, maximumBytes: Int = 50 * 1_048_576, timeout: Double = 30) {
        self.key = key
        self.identifier = identifier
        self.typeHint = typeHint
        self.maximumBytes = maximumBytes
        self.timeout = timeout
    }

    init(from container: KeyedDecodingContainer<ExtensionStep.CodingKeys>) throws {
        key = try container.decode(String.self, forKey: .key)
        identifier = try container.decode(.identifier, or: "attachment")
        typeHint = try container.decodeIfPresent(String.self, forKey: .typeHint)
        maximumBytes = try container.decode(.maximumBytes, or: 50 * 1_048_576)
        timeout = try container.decode(.timeout, or: 30)
        guard maximumBytes > 0 else { throw container.invalid(.maximumBytes, "must be a positive number of bytes") }
        guard timeout > 0, timeout.isFinite else { throw container.invalid(.timeout, "must be a positive number of seconds") }
    }
}
