import HeraldCore
import HeraldDeviceLink
import HeraldWebPush

/// A web app on one of the fleet's devices, as lean as the benchmark needs: its subscription's keys, id and
/// endpoint. It does what a web app does before anything is on screen — decrypt, read the declarative message — and no
/// more (the real one is HeraldDeviceHost's `WebApp`, which also keeps a screen and runs a service worker).
struct BenchWebApp: Sendable {
    /// The device that holds it.
    let device: DeviceFleet.Device
    /// The subscription's keys (`p256dh`, `auth`, and the private key that decrypts).
    let keys: WebPushSubscriptionKeys
    /// The subscription id: the token the push service delivers its messages to.
    let subscription: DeviceToken
    /// Where the site's server posts: `<push service origin>/push/<id>`.
    let endpoint: String

    /// The origin every bench web app has (a site; each device holds one web app of it).
    static let origin = "https://bench.example"

    /// Subscribes a new web app on `device` with the site's VAPID key `applicationServerKey` (base64url).
    static func subscribe(on device: DeviceFleet.Device, applicationServerKey: String) async throws -> BenchWebApp {
        let keys = WebPushSubscriptionKeys()
        let token = DeviceToken.random()
        let answer = try await device.client.subscribeWebPush(origin: origin, applicationServerKey: applicationServerKey, token: token)
        return BenchWebApp(device: device, keys: keys, subscription: answer.token, endpoint: answer.endpoint)
    }

    /// What the web app makes of a delivered message: the bench message it would show, or why it shows nothing.
    func open(_ notification: DeviceLinkNotification) -> Result<BenchMessage, BenchMessage.Failure> {
        guard let stored = WebPushStoredMessage(payload: notification.payload) else {
            return .failure(BenchMessage.Failure("the payload is not a web push message"))
        }
        guard stored.encoding == .aes128gcm else { return .failure(BenchMessage.Failure("the body is not aes128gcm")) }
        let plaintext: [UInt8]
        do {
            plaintext = try keys.decrypt(stored.body)
        } catch {
            return .failure(BenchMessage.Failure("cannot decrypt: \(error)"))
        }
        return BenchMessage.parse(plaintext)
    }
}

/// The benchmark's declarative web push message (Safari 18.4+): what the sender encrypts and each web app shows.
///
/// `{"web_push":8030,"notification":{"title":"Bench message","navigate":"https://bench.example/m/<run>-<index>"}}`,
/// the run and the index in fixed-width decimal so that every message of a run has the same length (the APNs
/// reference payload is made the same size as the encrypted body). The web app learns which message it shows only by
/// decrypting it, so the time to "shown" includes the decryption.
struct BenchMessage: Sendable, Hashable {
    /// The run (phase) it belongs to.
    var run: Int
    /// Its number in the run.
    var index: Int

    /// Why a message shows nothing, in one line.
    struct Failure: Error, Hashable {
        var reason: String

        init(_ reason: String) { self.reason = reason }
    }

    /// The title every message has.
    static let title = "Bench message"
    /// Where every message's `navigate` URL starts.
    static let navigatePrefix = BenchWebApp.origin + "/m/"

    /// The plaintext of message `index` of run `run` (both below 10^4 and 10^8).
    static func plaintext(run: Int, index: Int) -> [UInt8] {
        let navigate = navigatePrefix + digits(run, width: 4) + "-" + digits(index, width: 8)
        return Array(#"{"web_push":8030,"notification":{"title":"\#(title)","navigate":"\#(navigate)"}}"#.utf8)
    }

    /// Reads a plaintext as a web app does: JSON, `web_push` 8030, a non-empty title, a `navigate` URL — then the
    /// benchmark's run and index from that URL.
    static func parse(_ plaintext: [UInt8]) -> Result<BenchMessage, Failure> {
        guard let root = (try? JSONParser.parse(plaintext))?.objectValue else { return .failure(Failure("the plaintext is not a JSON object")) }
        guard root["web_push"]?.integerValue == 8030 else { return .failure(Failure("not a declarative message (web_push is not 8030)")) }
        guard let notification = root["notification"]?.objectValue,
            let title = notification["title"]?.stringValue, !title.isEmpty,
            let navigate = notification["navigate"]?.stringValue
        else { return .failure(Failure("the notification has no title or no navigate URL")) }
        guard navigate.hasPrefix(navigatePrefix) else { return .failure(Failure("navigate \(navigate) is not a bench message's")) }
        let numbers = navigate.dropFirst(navigatePrefix.count).split(separator: "-")
        guard numbers.count == 2, let run = Int(numbers[0]), let index = Int(numbers[1]) else {
            return .failure(Failure("navigate \(navigate) names no run and index"))
        }
        return .success(BenchMessage(run: run, index: index))
    }

    private static func digits(_ value: Int, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
