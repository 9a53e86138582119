import Crypto
import FuzzDriver
import HeraldWebPush

/// libFuzzer target: a web push request's credentials and headers — the `Authorization: vapid t=…, k=…` parser (and
/// the draft `WebPush` form with `Crypto-Key`), the JWT, its ES256 signature and Apple's claim rules (`VAPIDVerifier`),
/// then the request rules (`WebPushRequest.evaluate`).
///
/// The input is the `Authorization` value on its first line and `Name: value` headers on the next (`Crypto-Key`,
/// `TTL`, `Urgency`, `Topic`, `Content-Encoding`). The seeds are signed with `fuzzKey` for `fuzzOrigin` around
/// `fuzzNow`, so mutations of valid ones reach the signature and the claims, not only the parser. Checked besides "no
/// crash": every explanation is one line; every VAPID refusal is `403 BadJwtToken`; what verifies has the
/// subscription's key and a subject the subject rules pass, and the request rules see the same identity.
func fuzzVAPID(_ bytes: [UInt8]) {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    let authorization = lines.first.map { String(decoding: $0, as: UTF8.self) }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        let value = line[line.index(after: colon)...].drop { $0 == UInt8(ascii: " ") }
        headers.append((String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
    let cryptoKey = headers.last { $0.name.lowercased() == "crypto-key" }?.value

    for policy in [WebPushPolicy(), WebPushPolicy(legacyAuthorization: .accept, clockLeewaySeconds: 0)] {
        let verified = VAPIDVerifier(policy: policy).verify(
            authorization: authorization,
            cryptoKey: cryptoKey,
            subscriptionKey: fuzzKey,
            origin: fuzzOrigin,
            nowSeconds: fuzzNow
        )
        switch verified {
        case .success(let identity):
            precondition(identity.key == fuzzKey, "verified with a key that is not the subscription's")
            precondition(VAPIDSubject.check(identity.subject) == nil, "verified a subject the subject rules refuse")
            precondition(policy.legacyAuthorization == .accept || identity.scheme == .vapid, "took the draft form against the policy")
        case .failure(let refusal):
            check(refusal)
            precondition(refusal.status == 403 && refusal.reason == .badJwtToken, "a VAPID refusal that is not 403 BadJwtToken")
        }

        let request = WebPushRequest(
            headers: [(name: "Authorization", value: authorization ?? "")] + headers,
            bodyLength: Int(bytes.count),
            origin: fuzzOrigin
        )
        switch request.evaluate(subscription: fuzzSubscription, policy: policy, nowSeconds: fuzzNow) {
        case .success(let accepted):
            precondition(accepted.vapid == (try? verified.get()), "the request rules verified another identity")
            precondition(accepted.ttl <= policy.maximumTTL, "a TTL over the policy's maximum")
            precondition(accepted.bodyLength <= policy.maximumBodyLength, "a body over the limit accepted")
        case .failure(let refusal):
            check(refusal)
        }
    }
    if let authorization {
        _ = try? VAPIDToken(parsing: authorization)
        _ = VAPIDSubject.check(authorization)
    }
}

private func check(_ refusal: WebPushRefusal) {
    precondition(!refusal.explanation.contains("\n") && !refusal.explanation.contains("\r"), "an explanation on more than one line")
    precondition(!refusal.explanation.isEmpty, "an empty explanation")
}

/// The application server's key the seeds are signed with (a fixed test scalar, not a secret).
let fuzzPrivateKey: P256.Signing.PrivateKey = {
    let scalar: [UInt8] = Array("herald-fuzz-vapid".utf8)
    return try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32 - scalar.count) + scalar)
}()

/// Its public key: the subscription's `applicationServerKey`.
let fuzzKey = VAPIDPublicKey(rawRepresentation: fuzzPrivateKey.publicKey.x963Representation)!

/// The subscription every input is sent to.
let fuzzSubscription = WebPushRequest.Subscription(applicationServerKey: fuzzKey)

/// The push service's origin: the seeds' `aud`.
let fuzzOrigin = "https://web.push.apple.com"

/// "Now": the seeds' `exp` is 12 hours later.
let fuzzNow: Int64 = 1_790_000_000

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzVAPID(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
