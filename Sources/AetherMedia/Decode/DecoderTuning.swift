import AetherBase
import CFFmpeg

/// Which frames the H.264/HEVC decoder may leave without its in-loop (deblocking) filter, after
/// libavcodec's `AVDiscard` levels and mpv's `--vd-lavc-skiploopfilter` names.
///
/// Automatic (no value chosen): see ``automatic(source:picture:)`` — `all` when each pixel shown
/// averages 64 or more of the source's, ``bidir`` when the picture is 4× or more smaller in area
/// than the source, else ``default`` (every frame filtered; libavcodec skips only empty packets).
/// Measured on the 1080p grain clip (aether-bench's): `bidir` costs nothing visible — 57.6 dB
/// PSNR at 1280×720, 61.0 dB at 480×270, 63.3 dB at 160×90 against a full decode scaled the same
/// way — and saves 12 % of the decode time.
public enum LoopFilterSkip: String, Sendable, CaseIterable {
    case none, `default`, nonref, bidir, nonkey, all

    var discard: AVDiscard {
        switch self {
        case .none: AVDISCARD_NONE
        case .default: AVDISCARD_DEFAULT
        case .nonref: AVDISCARD_NONREF
        case .bidir: AVDISCARD_BIDIR
        case .nonkey: AVDISCARD_NONKEY
        case .all: AVDISCARD_ALL
        }
    }

    /// The automatic choice for a `source` decoded to be shown at `picture`: `all` when each
    /// pixel shown averages 64 or more of the source's (8×8: every block edge the filter would
    /// smooth falls inside one pixel shown), `bidir` from 4, else `default`.
    ///
    /// On the 1080p grain clip in half blocks at 160×48 (each pixel shown averages 135):
    /// `all` decodes in 13 % less time than `none` (ffmpeg, 1 thread: 1.24 s against 1.42 s
    /// for 11 s), `bidir` in 3 %; the ideal half-block picture of `all` is 0.11 dB worse
    /// (0.2 dB on the worst frame, as its errors drift until the next keyframe) against the
    /// source on the 2×4 sub-cell grid (25.90 against 26.01 dB).
    static func automatic(source: PixelSize, picture: PixelSize) -> LoopFilterSkip {
        let shown = picture.width * picture.height
        guard shown > 0 else { return .default }
        let area = source.width * source.height
        if area >= 64 * shown { return .all }
        return area >= 4 * shown ? .bidir : .default
    }
}

/// How many threads the video decoder runs (`--vd-lavc-threads`, mpv's option).
///
/// Asked for (1–16): that many, always. Automatic (0): one thread when the source is at most
/// 1080p at 30 frames a second, else one per core (``CodecContext``); a one-thread decoder
/// that cannot keep up (over the last 48 frames the video thread worked more than half of the
/// frame interval per frame at the current speed)
/// is reopened with one thread per core at the next keyframe, and stays so.
///
/// Measured on the 1080p grain clip (aether-bench, 2 cores): frame threads cost 11 % more
/// decode CPU than one thread (median of 6 runs each, ffmpeg -threads 1 against auto), and
/// exact seeks took longer with them (median 229 against 177 ms, p95 436 against 300 ms).
public struct DecoderThreads: Sendable, Equatable {
    /// Threads to open the decoder with (0: one per core).
    public private(set) var current: Int
    /// Whether the count may still rise (automatic, starting at one).
    public private(set) var adaptive: Bool
    /// Asked to rise: the next keyframe reopens the decoder.
    public private(set) var upgradeWanted = false
    private var windowFrames = 0
    private var windowBusy = 0.0

    /// Frames per judgement.
    static let window = 48
    /// Share of the frame interval the video thread may work per frame on one thread
    /// (``SyncPolicy/oneThreadBusyShare``).
    public static let busyShare = 0.5
    /// The most a one-thread start takes on: 1920×1088 at 30.5 frames a second.
    static let oneThreadPixelRate = 1920.0 * 1088 * 30.5

    private init(current: Int, adaptive: Bool) {
        self.current = current
        self.adaptive = adaptive
    }

    public init(asked: Int, width: Int, height: Int, frameInterval: Double) {
        if asked > 0 {
            self.init(current: asked, adaptive: false)
        } else {
            let rate = Double(max(0, width)) * Double(max(0, height)) / max(1e-3, frameInterval)
            let one = rate > 0 && rate <= Self.oneThreadPixelRate
            self.init(current: one ? 1 : 0, adaptive: one)
        }
    }

    /// Exactly `threads` (0: one per core), never changed.
    public static func fixed(_ threads: Int) -> DecoderThreads {
        DecoderThreads(current: max(0, threads), adaptive: false)
    }

    /// The video thread worked `busy` seconds (decoding, filtering, scaling; not waiting for
    /// room in the frame queue) on `frames` frames at playback `rate`.
    public mutating func observe(frames: Int, busy: Double, frameInterval: Double, rate: Double,
                                 busyShare: Double = DecoderThreads.busyShare) {
        guard adaptive, !upgradeWanted, frames > 0 else { return }
        windowFrames += frames
        windowBusy += max(0, busy)
        guard windowFrames >= Self.window else { return }
        let perFrame = windowBusy / Double(windowFrames)
        if perFrame > busyShare * frameInterval / max(0.01, rate) { upgradeWanted = true }
        windowFrames = 0
        windowBusy = 0
    }

    /// The decoder was reopened with one thread per core.
    public mutating func upgraded() {
        current = 0
        adaptive = false
        upgradeWanted = false
    }
}
