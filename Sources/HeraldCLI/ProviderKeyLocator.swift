import Foundation
import HeraldStore

/// Finds the provider key `herald send` signs with when no key options are given: the one `herald keys generate`
/// kept in `<data-dir>/keys/`, and the team id the data directory registered for it.
enum ProviderKeyLocator {
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
        guard FileManager.default.fileExists(atPath: configuration.databasePath) else { return nil }
        let store = try openStore(data)
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
