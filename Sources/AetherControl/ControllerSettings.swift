import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How many more times an item or the playlist repeats (mpv's `--loop-file`, `--loop-playlist`).
public enum LoopCount: Sendable, Equatable {
    case no, times(Int), infinite

    /// `no`, `inf`, `yes` (= inf), or a count.
    public init?(option: String) {
        switch option {
        case "no": self = .no
        case "inf", "yes", "": self = .infinite
        default:
            guard let n = Int(option), n >= 0 else { return nil }
            self = n == 0 ? .no : .times(n)
        }
    }

    public var isOn: Bool { self != .no }
}

/// Everything about playlist playback the command line and config decide.
public struct ControllerSettings: Sendable {
    /// Options every item is loaded with (its start position, tracks, volume …).
    public var player = PlayerOptions()
    /// `--start` was given: it wins over a saved position.
    public var startGiven = false
    /// `--playlist-start` (0-based).
    public var playlistStart = 0
    public var loopFile = LoopCount.no
    public var loopPlaylist = LoopCount.no
    /// `--shuffle`, and the seed that makes its order reproducible (nil: random).
    public var shuffle = false
    public var shuffleSeed: UInt64?
    /// `--keep-open`: stay on the last frame at the end instead of leaving.
    public var keepOpen = false
    /// `--resume-playback` (default) and `--save-position-on-quit`.
    public var resume = true
    public var savePositionOnQuit = false
    public var watchLater = WatchLater(directory: WatchLater.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    /// Look for subtitle files next to each item (`movie.srt`, `movie.en.ass`).
    public var subtitleAutoload = true
    public init() {}
}
