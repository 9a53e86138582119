import Foundation

/// Where the `node` that runs service workers is: `HERALD_NODE` when it is set, else the first `node` on `PATH`.
public struct NodeExecutable: Sendable, Equatable {
    /// The executable's absolute path.
    public let path: String

    /// A `node` at a known path.
    public init(path: String) { self.path = path }

    /// The `node` the environment names, or `nil` when there is none (web apps with a service worker then cannot run,
    /// and say so).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> NodeExecutable? {
        if let explicit = environment["HERALD_NODE"], !explicit.isEmpty {
            return FileManager.default.isExecutableFile(atPath: explicit) ? NodeExecutable(path: explicit) : nil
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/node"
            if FileManager.default.isExecutableFile(atPath: candidate) { return NodeExecutable(path: candidate) }
        }
        return nil
    }
}
