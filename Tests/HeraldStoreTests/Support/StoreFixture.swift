import Foundation
import HeraldCore
import Logging

@testable import HeraldStore

/// A fresh folder under the system's temporary directory, removed when the body returns or throws.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)").path
    defer {
        try? FileManager.default.removeItem(atPath: path)
        dropDatabase(standingFor: path)
    }
    return try await body(path)
}

/// Enqueues through the callback form and waits for the completion.
func enqueueAndWait(_ store: SQLiteStore, _ notification: AcceptedNotification) async -> Result<Int64, StoreError> {
    await withCheckedContinuation { continuation in
        store.enqueue(notification) { continuation.resume(returning: $0) }
    }
}

/// A syntactically valid P-256 public key in PEM form (the store does not parse it).
let samplePublicKeyPEM = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YhLtJwJ1z8Y3uFe6n5Qm6lQ0qVbJ9Ur
    6bJj8lXcXn0Hq2XxkQmG0sQ3qS1x8qG9mWw0k0Gq6H4r3e2m1Q9c0Q==
    -----END PUBLIC KEY-----
    """
