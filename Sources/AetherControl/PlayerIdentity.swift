/// The player's name and version: the one home of both (`--version`, MPRIS `Identity`, the
/// IPC `mpv-version` property).
public enum PlayerIdentity {
    public static let name = "aether-tui"
    public static let version = "0.1.0"
    /// IPC `mpv-version` (mpv says `mpv 0.38.0`): what answers, and its version.
    public static var versionLine: String { "\(name) \(version)" }
    /// `--title`'s default: mpv's, with our name (a ``PropertyExpansion`` template).
    public static let defaultTitle = "${?media-title:${media-title}}${!media-title:No file} - \(name)"
}
