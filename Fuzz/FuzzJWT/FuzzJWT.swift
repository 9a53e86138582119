import Crypto
import FuzzDriver
import HeraldJWT

/// libFuzzer target: the provider token path of every request — the `authorization` header's scheme, the JWT's three
/// parts (base64url, JSON header and claims) and the ES256 signature — through `ProviderTokenVerifier`.
///
/// The input is the header value's token, after `bearer `. The seed corpus is signed with `fuzzKey`, so mutations of
/// valid tokens reach the signature and claim checks, not only the parser.
func fuzzJWT(_ bytes: [UInt8]) {
    let token = String(decoding: bytes, as: UTF8.self)
    // A new verifier per input: its cache would otherwise make one input's outcome depend on earlier ones.
    let verifier = ProviderTokenVerifier(keys: [fuzzKey])
    _ = verifier.verify(authorization: "bearer " + token, nowSeconds: fuzzNow)
    if let parsed = try? ProviderToken(parsing: token) {
        _ = parsed.hasValidSignature(for: fuzzKey.publicKey)
    }
}

/// The key the seed tokens are signed with (a fixed test scalar, not a secret): kid `FUZZKEY001`, team `FUZZTEAM01`.
let fuzzKey: SigningKey = {
    let scalar: [UInt8] = [0x5E, 0xED, 0xF0, 0x22, 0x4E, 0x7A, 0x1D, 0x00, 0xC0, 0xFF, 0xEE, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    let privateKey = try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32 - scalar.count) + scalar)
    return try! SigningKey(keyID: "FUZZKEY001", teamID: "FUZZTEAM01", publicKey: privateKey.publicKey)
}()

/// "Now" for the age checks: the seeds' `iat` is 1_790_000_000 (tokens up to an hour older are accepted).
let fuzzNow: Int64 = 1_790_000_600

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzJWT(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
