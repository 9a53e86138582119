import HeraldUserNotifications

/// A notification category the app registers at launch, with its actions (Apple's
/// `UNNotificationCategory`).
public struct CategoryManifest: Sendable, Hashable, Codable {
    /// Matched against the payload's `aps.category` (or a service extension's `setCategory`).
    public var identifier: String
    /// The action buttons, in display order.
    public var actions: [ActionManifest]
    /// SiriKit intent identifiers.
    public var intentIdentifiers: [String]
    /// The category's options.
    public var options: UNNotificationCategoryOptions
    /// The body shown when previews are hidden.
    public var hiddenPreviewsBodyPlaceholder: String?
    /// The summary format for grouped notifications.
    public var categorySummaryFormat: String?

    /// Creates a category.
    public init(
        identifier: String,
        actions: [ActionManifest] = [],
        intentIdentifiers: [String] = [],
        options: UNNotificationCategoryOptions = [],
        hiddenPreviewsBodyPlaceholder: String? = nil,
        categorySummaryFormat: String? = nil
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
    }

    /// The runtime's category.
    public func makeCategory() -> UNNotificationCategory {
        UNNotificationCategory(
            identifier: identifier,
            actions: actions.map { $0.makeAction() },
            intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder,
            categorySummaryFormat: categorySummaryFormat,
            options: options
        )
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case identifier, actions, intentIdentifiers, options, hiddenPreviewsBodyPlaceholder, categorySummaryFormat
    }

    /// Decodes a category; action identifiers must be unique within it.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decodeNonEmpty(.identifier)
        actions = try container.decode(.actions, or: [])
        intentIdentifiers = try container.decode(.intentIdentifiers, or: [])
        options = UNNotificationCategoryOptions(try container.decodeNames(.options, table: ManifestNames.categoryOptions, or: []))
        hiddenPreviewsBodyPlaceholder = try container.decodeIfPresent(String.self, forKey: .hiddenPreviewsBodyPlaceholder)
        categorySummaryFormat = try container.decodeIfPresent(String.self, forKey: .categorySummaryFormat)
        var seen: Set<String> = []
        for (index, action) in actions.enumerated() where !seen.insert(action.identifier).inserted {
            throw ManifestError(
                .duplicate,
                field: ManifestError.path(
                    container.codingPath + [CodingKeys.actions, AnyCodingKey(intValue: index), ActionManifest.CodingKeys.identifier]
                ),
                reason: "the action \"\(action.identifier)\" appears twice in category \"\(identifier)\""
            )
        }
    }

    /// Encodes every field, defaults included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(actions, forKey: .actions)
        try container.encode(intentIdentifiers, forKey: .intentIdentifiers)
        try container.encode(ManifestNames.names(of: options, in: ManifestNames.categoryOptions), forKey: .options)
        try container.encodeIfPresent(hiddenPreviewsBodyPlaceholder, forKey: .hiddenPreviewsBodyPlaceholder)
        try container.encodeIfPresent(categorySummaryFormat, forKey: .categorySummaryFormat)
    }
}

/// An action button (Apple's `UNNotificationAction`, or `UNTextInputNotificationAction` when
/// ``textInput`` is set).
public struct ActionManifest: Sendable, Hashable, Codable {
    /// The identifier sent back with the user's response.
    public var identifier: String
    /// The button title.
    public var title: String
    /// `foreground`, `destructive`, `authenticationRequired`.
    public var options: UNNotificationActionOptions
    /// Present for a text input action.
    public var textInput: TextInputManifest?

    /// Creates an action.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], textInput: TextInputManifest? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    /// The runtime's action.
    public func makeAction() -> UNNotificationAction {
        guard let textInput else { return UNNotificationAction(identifier: identifier, title: title, options: options) }
        return UNTextInputNotificationAction(
            identifier: identifier,
            title: title,
            options: options,
            textInputButtonTitle: textInput.buttonTitle,
            textInputPlaceholder: textInput.placeholder
        )
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case identifier, title, options, textInput
    }

    /// Decodes an action.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decodeNonEmpty(.identifier)
        title = try container.decode(String.self, forKey: .title)
        options = UNNotificationActionOptions(try container.decodeNames(.options, table: ManifestNames.actionOptions, or: []))
        textInput = try container.decodeIfPresent(TextInputManifest.self, forKey: .textInput)
    }

    /// Encodes every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(title, forKey: .title)
        try container.encode(ManifestNames.names(of: options, in: ManifestNames.actionOptions), forKey: .options)
        try container.encodeIfPresent(textInput, forKey: .textInput)
    }
}

/// The text field of a text input action.
public struct TextInputManifest: Sendable, Hashable, Codable {
    /// The send button's title.
    public var buttonTitle: String
    /// The placeholder in the empty field.
    public var placeholder: String

    /// Creates a text field description.
    public init(buttonTitle: String, placeholder: String = "") {
        self.buttonTitle = buttonTitle
        self.placeholder = placeholder
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case buttonTitle, placeholder
    }

    /// Decodes the text field.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        buttonTitle = try container.decode(String.self, forKey: .buttonTitle)
        placeholder = try container.decode(.placeholder, or: "")
    }
}
