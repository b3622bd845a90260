import AetherCommands
import AetherPlayback
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

/// `--hr-seek` (mpv's option): which seeks are exact when the command names neither `exact`
/// nor `keyframes`. A keyframe seek forward still never lands before its target (see
/// ``Player/seek(by:mode:)``).
public enum HRSeek: String, Sendable, CaseIterable {
    /// Only seeks that ask for `exact`.
    case no
    /// Absolute seeks (mpv's default); relative and percentage ones go to keyframes.
    case absolute
    /// Every seek but those that ask for `keyframes`.
    case yes

    /// Whether a seek of `reference` with `precision` is exact (mpv's rule in `mp_seek`).
    public func isExact(_ precision: PlayerCommand.SeekPrecision, _ reference: PlayerCommand.SeekReference) -> Bool {
        switch (precision, self) {
        case (.exact, _): return true
        case (.keyframes, _): return false
        case (.auto, .yes): return true
        case (.auto, .absolute): return reference == .absolute
        case (.auto, .no): return false
        }
    }
}

/// Everything about playlist playback the command line and config decide. It only declares:
/// its body is the list of those settings.
public struct ControllerSettings: Sendable {
    /// Options every item is loaded with (its start position, tracks, volume …).
    public var player: PlayerOptions
    /// `--start` was given: it wins over a saved position.
    public var startGiven = false
    /// `--playlist-start` (0-based).
    public var playlistStart = 0
    public var loopFile = LoopCount.no
    public var loopPlaylist = LoopCount.no
    /// `--ab-loop-a`, `--ab-loop-b`, `--ab-loop-count`; the `l` key and the properties change it
    /// for the rest of the session (mpv's options).
    public var abLoop = ABLoop()
    /// `--shuffle`, and the seed that makes its order reproducible (nil: random).
    public var shuffle = false
    public var shuffleSeed: UInt64?
    /// `--hr-seek`: which seeks without `exact` or `keyframes` are exact.
    public var hrSeek = HRSeek.absolute
    /// `--chapter-seek-threshold` (mpv's option and default): seconds into a chapter within
    /// which going back a chapter goes to the one before; further in, it restarts this one.
    public var chapterSeekThreshold = 5.0
    /// `--keep-open`: stay on the last frame at the end instead of leaving.
    public var keepOpen = false
    /// Where each item's cover is written as a PNG for MPRIS's `mpris:artUrl` (nil: nowhere).
    public var coverDirectory: String?
    /// `--image-display-duration`: how long an image stays before the playlist moves on.
    public var imageDuration = ImageDuration.seconds(1)
    /// `--resume-playback` (default) and `--save-position-on-quit`.
    public var resume = true
    public var savePositionOnQuit = false
    /// Where a choice of equalizer made while playing is kept for the device (nil: not kept).
    public var equalizerMemory: EqualizerMemory?
    public var watchLater = WatchLater(directory: WatchLater.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    /// Look for subtitle files next to each item (`movie.srt`, `movie.en.ass`).
    public var subtitleAutoload = true
    /// `player`: the items' options, their clock with them.
    public init(player: PlayerOptions) { self.player = player }
}

/// mpv's `--image-display-duration`: seconds an image item stays (default 1), or `inf` (until
/// the user moves on).
public enum ImageDuration: Sendable, Equatable {
    case seconds(Double)
    case forever

    /// `1`, `2.5`, `inf`; nil for anything else (negative, not a number, past a day).
    public init?(option: String) {
        if option == "inf" { self = .forever; return }
        guard let s = Double(option), s.isFinite, (0...86_400).contains(s) else { return nil }
        self = .seconds(s)
    }

    /// When an image shown at `shownAt` has stayed long enough; nil: never.
    func until(shownAt: Double) -> Double? {
        if case .seconds(let s) = self { return shownAt + s }
        return nil
    }
}

/// Which chapter a step of `delta` chapters lands on (mpv's `add chapter`, PgUp/PgDn, `!` `@`).
public enum ChapterStep {
    /// `starts`: the chapters' start times in order; `now`: the position. A step back from more
    /// than `threshold` seconds into a chapter restarts it (mpv's `--chapter-seek-threshold`);
    /// nil past the first or the last chapter.
    public static func target(starts: [Double], now: Double, delta: Int, threshold: Double) -> Int? {
        guard !starts.isEmpty else { return nil }
        let current = starts.lastIndex { $0 <= now + 0.01 } ?? -1
        var target = current + delta
        if delta < 0, current >= 0, now - starts[current] > threshold { target = current + delta + 1 }
        return starts.indices.contains(target) ? target : nil
    }
}
