/// Herald's version: `herald --version`, the first line of `herald serve`'s banner, `herald_build_info` in `/metrics`,
/// and the names of release artifacts.
///
/// Written here and in the repository's `VERSION` file, which scripts read; a test holds the two equal. Change both
/// when a release is tagged, with its entry in CHANGELOG.md.
public enum HeraldVersion {
    /// `MAJOR.MINOR.PATCH` (semantic versioning).
    public static let current = "0.1.0"
}
