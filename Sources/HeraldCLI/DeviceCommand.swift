import ArgumentParser
import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator

/// `herald device`: a headless simulated device on the device link.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Run a simulated device: connect to herald serve, register apps, show and acknowledge what arrives.",
        discussion: """
            Each notification is run through the device runtime of its app (authorization, app state, service and \
            content extensions, as the manifest describes; docs/device-manifest.md) and printed as one line, followed by \
            what the device did with it (displayed, modified, dropped, background…), which is also reported to the \
            server and lands in the notification's trace. Reconnects with backoff when the server goes away; \
            notifications sent again after a reconnect are acknowledged but shown once.

            With --web-app the device also holds a web app (Safari on a Mac, or with --home-screen an iPhone's Home \
            Screen web app): once connected it subscribes and prints the subscription's toJSON() as one line (what a \
            page sends its server), then decrypts and shows what is pushed to it (docs/web-push.md, "The browser side").
            """
    )

    @Option(
        help: """
            The server's device link: the devices: URL of herald serve's banner. Repeat it (or separate URLs with commas) \
            for the nodes of a cluster: when a connection fails or closes, the device tries the next one.
            """
    )
    var server: [String] = []

    /// The `--server` URLs, in order; the local default when none is given.
    var servers: [String] {
        let given = server.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        return given.isEmpty ? ["ws://127.0.0.1:2196/device-link"] : given
    }

    @Option(help: "The device id (from `herald devices add NAME`).")
    var id: String?

    @Option(help: "The device's secret (from `herald devices add NAME`).")
    var secret: String?

    @Option(help: "Enrol as a new device with this name (the server must run with --allow-enrol).")
    var enrol: String?

    @Option(
        help:
            "Without --id/--secret/--enrol: the device's name in the data directory (created there on first use, its credentials kept in <data-dir>/devices/NAME.json)."
    )
    var name = "my-phone"

    @OptionGroup var data: DataDirectoryOptions

    @Option(name: .customLong("app"), help: "A bundle id to register (repeatable); added to the manifest's apps.")
    var apps: [String] = []

    @Option(help: "The environment of the --app apps: sandbox or production.")
    var environment = "sandbox"

    @Option(help: "A device manifest (JSON, docs/device-manifest.md) describing the apps.")
    var manifest: String?

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Option(name: .customLong("max-backoff"), help: "The longest wait, in seconds, between reconnection attempts.")
    var maximumBackoff = 5.0

    @OptionGroup var webApp: WebAppOptions

    func run() async throws {
        try await reportingErrors {
            let endpoints = try servers.map(DeviceLinkEndpoint.init)
            // The manifest and the web app first: a mistake in them must not leave a new device behind in the data
            // directory.
            let deviceManifest = try resolveManifest()
            try webApp.validate(hasApps: !deviceManifest.apps.isEmpty)
            let hello = try await resolveHello()
            let keyring = webAppKeyring()
            let webApps = try webApp.webApp(keyring: keyring).map { [$0] } ?? []
            let device = try await SimulatedDevice(manifest: deviceManifest)
            let output = DeviceOutput(json: json)
            let session = DeviceLinkLoop(
                endpoints: endpoints,
                hello: hello,
                device: device,
                output: output,
                webApps: webApps,
                keyring: keyring,
                maximumBackoff: max(0.1, maximumBackoff),
                refusalHint: id == nil && enrol == nil
                    ? "'\(name)' is a device of the data directory \(data.url.standardizedFileURL.path): is it the server's? give --data-dir"
                    : nil
            )
            try await session.run()
        }
    }

    private func resolveHello() async throws -> DeviceLinkHello {
        switch (id, secret, enrol) {
        case (let id?, let secret?, nil): return .device(id: id, secret: secret)
        case (nil, nil, let name?): return .enrol(name: name)
        case (nil, nil, nil):
            // A server on this machine: the device lives in its data directory.
            let local = try await LocalDevelopment.deviceCredentials(name: name, data: data)
            let file = LocalDevelopment.credentialsFile(name: name, data: data).path
            let note =
                local.isNew
                ? "added device '\(name)' (\(local.id)) to \(data.dataDirectory); credentials kept in \(file)"
                : "device '\(name)' (\(local.id)) from \(file)"
            FileHandle.standardError.write(Data("\(note)\n".utf8))
            return .device(id: local.id, secret: local.secret)
        default: throw CLIFailure("give either --id with --secret, or --enrol NAME (or neither, for a device in the data directory)")
        }
    }

    private func resolveManifest() throws -> DeviceManifest {
        let environment = try parseEnvironment(environment)
        var base: DeviceManifest
        if let manifest {
            try SystemError.requireReadable(manifest)
            do {
                base = try DeviceManifest(contentsOf: URL(fileURLWithPath: manifest))
            } catch {
                throw CLIFailure("\(manifest): \(error)")
            }
        } else {
            base = DeviceManifest(name: enrol ?? name, apps: [])
        }
        for bundleID in apps where base.app(bundleID) == nil {
            let app = #"{"apps":[{"bundleID":\#(jsonString(bundleID)),"environment":"\#(environment.rawValue)"}]}"#
            do {
                base.apps += try DeviceManifest(json: Data(app.utf8)).apps
            } catch {
                throw CLIFailure("--app \(bundleID): \(error)")
            }
        }
        guard !base.apps.isEmpty || webApp.isGiven else { throw CLIFailure("no apps: give --app BUNDLE_ID, --manifest FILE or --web-app ORIGIN") }
        return base
    }

    /// Where the web app's subscription is kept across restarts (``WebAppKeyring``): the credentials file of a device
    /// of the data directory, a file named after the id for `--id` (when the data directory exists); none for an
    /// enrolment, which makes a new device each time.
    private func webAppKeyring() -> WebAppKeyring? {
        guard webApp.isGiven, enrol == nil else { return nil }
        guard let id else { return WebAppKeyring(file: LocalDevelopment.credentialsFile(name: name, data: data)) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: data.url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return WebAppKeyring(file: data.url.appendingPathComponent("devices", isDirectory: true).appendingPathComponent("\(safe).web-apps.json"))
    }
}

/// The device link's address, from a `ws://host:port/path` URL.
struct DeviceLinkEndpoint: Sendable {
    var host: String
    var port: Int
    var path: String

    init(_ text: String) throws {
        guard let url = URL(string: text), url.scheme == "ws", let host = url.host, !host.isEmpty else {
            throw CLIFailure("--server must be a ws:// URL such as ws://127.0.0.1:2196/device-link, not '\(text)'")
        }
        self.host = host
        self.port = url.port ?? 80
        self.path = url.path.isEmpty ? "/device-link" : url.path
    }

    /// The URL again, as `--server` takes it.
    var url: String { "ws://\(host):\(port)\(path)" }
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    JSONValue.string(text).jsonText()
}
