import HeraldCore

/// The APNs environments a signing key or a provider certificate works in.
///
/// Team-scoped keys are restricted to sandbox or production, but "older keys that work in both environments are
/// still supported" (spec §A.7); legacy universal certificates likewise work in both (spec §A.8).
public enum EnvironmentScope: String, Sendable, Hashable, Codable, CaseIterable {
    /// Only the sandbox (development) environment.
    case sandbox
    /// Only the production environment.
    case production
    /// Both environments (older keys, universal certificates).
    case both

    /// The scope of a single environment.
    public init(_ environment: APNSEnvironment) {
        switch environment {
        case .sandbox: self = .sandbox
        case .production: self = .production
        }
    }

    /// Whether this scope covers an environment.
    public func includes(_ environment: APNSEnvironment) -> Bool {
        switch (self, environment) {
        case (.both, _), (.sandbox, .sandbox), (.production, .production): true
        default: false
        }
    }
}
