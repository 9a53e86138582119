import Foundation

/// A simulated device described in a file: its name and the apps installed on it.
///
/// Read one with ``init(json:)`` or ``init(contentsOf:)``; a malformed manifest throws a
/// ``ManifestError`` naming the field. docs/device-manifest.md documents every field.
public struct DeviceManifest: Sendable, Hashable, Codable {
    /// The device's name (shown in the console).
    public var name: String
    /// The installed apps; bundle ids are unique.
    public var apps: [AppManifest]

    /// Creates a manifest.
    public init(name: String = "Simulated iPhone", apps: [AppManifest]) {
        self.name = name
        self.apps = apps
    }

    /// Reads a manifest from JSON. Throws ``ManifestError``.
    public init(json: Data) throws {
        do {
            self = try JSONDecoder().decode(DeviceManifest.self, from: json)
        } catch let error as DecodingError {
            throw ManifestError.translating(error)
        }
    }

    /// Reads a manifest file. Throws ``ManifestError`` (a file that cannot be read is reported
    /// with an empty field).
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ManifestError(.invalidJSON, field: "", reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(json: data)
    }

    /// The manifest as JSON, every default written out, keys sorted.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The app with this bundle id.
    public func app(_ bundleID: String) -> AppManifest? { apps.first { $0.bundleID == bundleID } }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, apps
    }

    /// Decodes a manifest: at least one app, bundle ids unique.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(.name, or: "Simulated iPhone")
        apps = try container.decode([AppManifest].self, forKey: .apps)
        guard !apps.isEmpty else { throw container.invalid(.apps, "a device needs at least one app") }
        var seen: Set<String> = []
        for (index, app) in apps.enumerated() where !seen.insert(app.bundleID).inserted {
            throw ManifestError(
                .duplicate,
                field: ManifestError.path([CodingKeys.apps, AnyCodingKey(intValue: index), AppManifest.CodingKeys.bundleID]),
                reason: "the app \"\(app.bundleID)\" is installed twice"
            )
        }
    }
}
