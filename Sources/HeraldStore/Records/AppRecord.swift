/// An app (bundle id) and the team it belongs to: a token-auth push to it must be signed with a key of that team.
///
/// Why: in APNs an app belongs to one developer team, and a key of another team cannot push to it (spec §A.7).
public struct AppRecord: Hashable, Sendable {
    /// The app's bundle id, e.g. `com.example.app`.
    public var bundleID: String
    /// The team id of the keys that may push to it, e.g. `HERALDTEAM`.
    public var teamID: String
    /// When it was added, in milliseconds since the epoch.
    public var createdAtMilliseconds: Int64

    /// Creates a record.
    public init(bundleID: String, teamID: String, createdAtMilliseconds: Int64) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.createdAtMilliseconds = createdAtMilliseconds
    }
}
