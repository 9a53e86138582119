import Foundation
import HeraldAuth
import HeraldStore

/// Finds the provider key `herald send` and `herald keys token` sign with when no key options are given: the one
/// `herald serve` or `herald keys generate` kept in `<data-dir>/keys/`, and the team id the data directory registered
/// for it.
enum ProviderKeyLocator {
    /// The signing key from `--key-file`/`--key-id`/`--team-id`, each one missing filled in from the data directory.
    ///
    /// - Throws: ``CLIFailure`` saying which option to give when the data directory cannot tell.
    ///
    /// - Parameter keyFileOption: the command's name for the key file option, for messages (`--key-file`, `--p8`).
    static func signingKey(
        keyFile: String?,
        keyID: String?,
        teamID: String?,
        data: DataDirectoryOptions,
        keyFileOption: String = "--key-file"
    ) async throws -> PrivateSigningKey {
        let file = try keyFileURL(keyFile: keyFile, keyID: keyID, data: data, keyFileOption: keyFileOption)
        guard let keyID = keyID ?? Self.keyID(fromFileName: file.lastPathComponent) else {
            throw CLIFailure("give --key-id (\(file.lastPathComponent) is not named AuthKey_<KEYID>.p8)")
        }
        var teamID = teamID
        if teamID == nil { teamID = try await registeredTeamID(keyID: keyID, data: data) }
        guard let teamID else {
            throw CLIFailure("give --team-id (key \(keyID) is not registered in \(data.dataDirectory))")
        }
        do {
            return try PrivateSigningKey(keyID: keyID, teamID: teamID, contentsOf: file)
        } catch {
            throw CLIFailure(error == .missingFile ? "cannot read the key file \(file.path)" : "\(file.path): \(error)")
        }
    }

    /// `keyFile`, else the key kept in `<data-dir>/keys` (the one named by `keyID`, or the only one).
    private static func keyFileURL(keyFile: String?, keyID: String?, data: DataDirectoryOptions, keyFileOption: String) throws -> URL {
        if let keyFile {
            try SystemError.requireReadable(keyFile)
            return URL(fileURLWithPath: keyFile)
        }
        try data.requireExisting()
        let directory = data.keysDirectory
        let kept = keptKeys(in: directory)
        if let keyID {
            guard let match = kept.first(where: { Self.keyID(fromFileName: $0.lastPathComponent) == keyID }) else {
                throw CLIFailure("no key \(keyID) in \(directory.path): give \(keyFileOption)")
            }
            return match
        }
        switch kept.count {
        case 1:
            return kept[0]
        case 0:
            throw CLIFailure(
                "no provider key in \(directory.path): give \(keyFileOption), --key-id and --team-id"
                    + (keyFileOption == "--key-file" ? " (or --cert and --cert-key)" : "") + ", "
                    + "or run `herald serve` once (it makes a development key) or `herald keys generate --team-id TEAMID`"
            )
        default:
            let ids = kept.compactMap { Self.keyID(fromFileName: $0.lastPathComponent) }.joined(separator: ", ")
            throw CLIFailure("\(kept.count) keys in \(directory.path) (\(ids)): choose one with --key-id or \(keyFileOption)")
        }
    }

    /// `AuthKey_<KEYID>.p8`, the name Apple gives a downloaded key.
    static func fileName(keyID: String) -> String { "AuthKey_\(keyID).p8" }

    /// The key id in a file name of the form `AuthKey_<KEYID>.p8`, as Apple names downloads.
    static func keyID(fromFileName name: String) -> String? {
        guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        let id = name.dropFirst("AuthKey_".count).dropLast(".p8".count)
        return id.isEmpty ? nil : String(id)
    }

    /// The `.p8` files in a directory, by name; none when it does not exist.
    static func keptKeys(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".p8") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The team id registered for a key id in the data directory's store; `nil` when there is no store or no such key.
    static func registeredTeamID(keyID: String, data: DataDirectoryOptions) async throws -> String? {
        let configuration = SQLiteStore.Configuration(dataDirectory: data.url.path)
        guard data.databaseURL != nil || FileManager.default.fileExists(atPath: configuration.databasePath) else { return nil }
        let store = try await openStore(data)
        let keys: [SigningKeyRecord]
        do {
            keys = try await store.signingKeys()
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
        return keys.first { $0.keyID == keyID }?.teamID
    }
}
