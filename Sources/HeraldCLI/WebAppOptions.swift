import ArgumentParser
import Foundation
import HeraldDeviceHost
import HeraldServiceWorker
import HeraldWebPush

/// `herald device --web-app ORIGIN --vapid-public-key KEY [--service-worker PATH] [--home-screen]`: a web app on the
/// device, subscribed once connected (docs/web-push.md, "The browser side").
///
/// Safari's rules, as the device applies them: the subscription is `userVisibleOnly: true` (Safari takes no other);
/// the permission a page asks for after a user gesture is granted, the command line being the gesture; and on an
/// iPhone only a Home Screen web app gets web push. A device with iOS apps (`--app`, `--manifest`) or a Home Screen
/// web app is an iPhone; a device with only a Safari web app is a Mac *(chosen: the manifest names no platform)*.
struct WebAppOptions: ParsableArguments {
    @Option(
        name: .customLong("web-app"),
        help: "A web app's origin (https://host[:port]): Safari on a Mac, or with --home-screen an iPhone's Home Screen web app."
    )
    var origin: String?

    @Option(
        name: .customLong("vapid-public-key"),
        help: """
            The web app's applicationServerKey: its server's VAPID public key in base64url, or the server's private key \
            file (PEM, the one `herald send --vapid-key` takes), whose public key is used.
            """
    )
    var vapidPublicKey: String?

    @Option(
        name: .customLong("service-worker"),
        help: "The web app's service worker (sw.js), run under Node for every push that is not a declarative message."
    )
    var serviceWorker: String?

    @Flag(name: .customLong("home-screen"), help: "The web app is added to an iPhone's Home Screen (the only web push on iOS).")
    var homeScreen = false

    /// Whether a web app is asked for.
    var isGiven: Bool { origin != nil }

    /// Checks the options against each other and the device (`hasApps`: it has iOS apps, so it is an iPhone), and that
    /// `environment` names a Node for a service worker.
    func validate(hasApps: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let origin else {
            if vapidPublicKey != nil || serviceWorker != nil || homeScreen {
                throw CLIFailure("--vapid-public-key, --service-worker and --home-screen go with --web-app ORIGIN")
            }
            return
        }
        guard vapidPublicKey != nil else { throw CLIFailure("--web-app \(origin) needs --vapid-public-key KEY (its server's VAPID public key)") }
        if hasApps, !homeScreen {
            // iOS and iPadOS 16.4+: web push only for a web app added to the Home Screen (WebKit's "Web Push for Web
            // Apps on iOS and iPadOS").
            throw CLIFailure(
                "this device has iOS apps, so it is an iPhone, where only a Home Screen web app gets web push: add --home-screen (or run the web app alone, as Safari on a Mac)"
            )
        }
        if let serviceWorker {
            try SystemError.requireReadable(serviceWorker)
            // Without Node every push for the worker would show nothing and count against the subscription until Safari's
            // rule revoked it: the site would be blamed for the machine. Refused at the start instead.
            guard NodeExecutable.locate(environment: environment) != nil else {
                throw CLIFailure("--service-worker needs Node to run \(serviceWorker): install nodejs (apt install nodejs) or set HERALD_NODE")
            }
        }
    }

    /// The web app, with the subscription kept in `keyring` when there is one for its origin and key (kept there
    /// otherwise); `nil` without `--web-app`.
    func webApp(keyring: WebAppKeyring?) throws -> WebApp? {
        guard let origin, let vapidPublicKey else { return nil }
        let configuration = WebApp.Configuration(
            origin: origin,
            applicationServerKey: try Self.applicationServerKey(vapidPublicKey),
            kind: homeScreen ? .homeScreen : .safari,
            serviceWorkerPath: serviceWorker.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        )
        do {
            // Made once to check and canonicalize the origin and key, which the keyring is keyed by.
            let checked = try WebApp(configuration: configuration)
            guard let keyring else { return checked }
            let canonicalKey = checked.applicationServerKey.base64URL
            if let kept = try keyring.entry(origin: checked.origin, applicationServerKey: canonicalKey) {
                return try WebApp(configuration: configuration, keys: kept.keys, subscriptionID: kept.subscriptionID)
            }
            try keyring.keep(
                WebAppKeyring.Entry(subscriptionID: checked.subscriptionID, keys: checked.keys),
                origin: checked.origin,
                applicationServerKey: canonicalKey
            )
            return checked
        } catch let error as WebAppError {
            throw CLIFailure("--web-app: \(error.description)")
        }
    }

    /// The key as given, or the public key of the PEM private key in the file it names: one file serves the
    /// device and `herald send --web-push`.
    static func applicationServerKey(_ given: String) throws -> String {
        guard given.contains("/") || given.hasSuffix(".pem") || given.hasSuffix(".p8") else { return given }
        try SystemError.requireReadable(given)
        guard let text = try? String(contentsOfFile: given, encoding: .utf8) else { throw CLIFailure("\(given) is not a text (PEM) file") }
        do {
            // The subject plays no part in the public key.
            return try VAPIDSigner(pemRepresentation: text, subject: "mailto:device@herald.invalid").publicKey.base64URL
        } catch {
            throw CLIFailure("--vapid-public-key \(given): \(error)")
        }
    }
}
