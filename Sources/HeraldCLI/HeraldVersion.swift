/// Herald's version: `herald --version` and the first line of `herald serve`'s banner.
///
/// The one place it is written; change it when a release is tagged.
enum HeraldVersion {
    static let current = "0.1.0"
}
