/// The web console's files (docs/console.md), built into the binary from `Sources/HeraldConsole/Assets/` by SwiftPM's
/// `embedInCode` resources: the `herald` binary needs no files at run time.
///
/// URL paths: the page (`index.html`) on `/`, `/console` and `/console/`; every other file on `/console/<name>`.
public enum ConsoleAssets {
    /// The paths that answer the page.
    public static let pagePaths: Set<String> = ["/", "/console", "/console/"]
    /// The prefix of the other files' paths.
    public static let assetPathPrefix = "/console/"

    /// The page: HTML that loads `console.css` and the script modules from the same origin.
    public static let page = ConsoleAsset(name: "index.html", bytes: PackageResources.index_html)

    /// The files under ``assetPathPrefix``, by name: the style sheet and the script modules.
    public static let files: [String: ConsoleAsset] = Dictionary(
        uniqueKeysWithValues: [
            ConsoleAsset(name: "console.css", bytes: PackageResources.console_css),
            ConsoleAsset(name: "console.js", bytes: PackageResources.console_js),
            ConsoleAsset(name: "faults.js", bytes: PackageResources.faults_js),
            ConsoleAsset(name: "channels.js", bytes: PackageResources.channels_js),
            ConsoleAsset(name: "helpers.js", bytes: PackageResources.helpers_js),
        ].map { ($0.name, $0) }
    )

    /// The asset a URL path (without its query) names, or `nil`: the page for ``pagePaths``, a file for
    /// `/console/<name>`.
    public static func asset(at path: String) -> ConsoleAsset? {
        if pagePaths.contains(path) { return page }
        guard path.hasPrefix(assetPathPrefix) else { return nil }
        return files[String(path.dropFirst(assetPathPrefix.count))]
    }

    /// Whether a path is the console's: one of ``pagePaths`` or under ``assetPathPrefix`` (whether or not a file is there).
    public static func isConsolePath(_ path: String) -> Bool {
        pagePaths.contains(path) || path.hasPrefix(assetPathPrefix)
    }
}
