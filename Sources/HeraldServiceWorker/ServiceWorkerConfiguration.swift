/// How a ``ServiceWorkerHost`` runs a web app's service worker: the script, its origin, the time budget and the
/// protocol's limits.
public struct ServiceWorkerConfiguration: Sendable, Equatable {
    /// The path of the site's service worker script (`sw.js`); `importScripts` reads files beside it.
    public var scriptPath: String
    /// The web app's origin, e.g. `https://example.com`: the script's URL is the origin and the script's file name.
    public var origin: String
    /// How long one event may take, from its dispatch until every promise passed to `waitUntil` settles. *(chosen)*:
    /// Safari documents none; 30 s is the budget Apple gives an app's background push handler (reference C.9).
    public var timeBudget: Duration = .seconds(30)
    /// The longest line the host reads from the scope; a longer one is an error for its event.
    public var maximumLineLength = 65_536
    /// The most actions (notifications, windows, badge changes, console lines, errors) kept for one event.
    public var maximumActionsPerEvent = 256
    /// `Notification.maxActions`: the action buttons a notification keeps. *(chosen)*: Safari shows none and
    /// documents no number; 2 is what other browsers report.
    public var maximumNotificationActions = 2
    /// The `node` to run; `nil` finds one with ``NodeExecutable/locate(environment:)`` at start.
    public var node: NodeExecutable?
    /// Options given to `node` before the scope: Node's permission model, so the process reads only the scope and the
    /// files beside the script and writes nothing (the host adds the `--allow-fs-read` options).
    public var nodeOptions = ["--experimental-permission", "--no-warnings"]

    /// A configuration with the defaults for the script at `scriptPath`, served from `origin`.
    public init(scriptPath: String, origin: String) {
        self.scriptPath = scriptPath
        self.origin = origin
    }
}
