/// The player's name and version: the one home of both (`--version`, MPRIS `Identity`, the
/// IPC `mpv-version` property, the package's version and changelog).
public enum PlayerIdentity {
    public static let name = "aether-tui"
    /// The release (`vX.Y.Z` is its tag).
    public static let version = "0.1.0"
    /// The version this build says: the release and, for a commit that is not its tag, the
    /// snapshot's suffix (`0.1.0+git20261127.6f7bfa9`; ``BuildCommit``, written at build time).
    public static let buildVersion = version + BuildCommit.versionSuffix
    /// The git commit the build was made from (`-dirty` with changes on it; `unknown` without git).
    public static let commit = BuildCommit.id
    /// IPC `mpv-version` and `--version`'s first line (mpv says `mpv 0.38.0`): what answers, and its version.
    public static var versionLine: String { "\(name) \(buildVersion)" }
    /// `--title`'s default: mpv's, with our name (a ``PropertyExpansion`` template).
    public static let defaultTitle = "${?media-title:${media-title}}${!media-title:No file} - \(name)"
}
