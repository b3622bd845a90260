import CFFmpeg
/// Where playback stands (AetherEngine's `PlaybackState`).
public enum PlayerState: String, Sendable, Codable {
    case idle, loading, playing, paused, seeking, ended, error
}

/// `.keyframe` lands on the keyframe at or before the target (fast, for scrubbing);
/// `.exact` decodes forward from it and shows the frame at (or just before) the target.
public enum SeekMode: String, Sendable {
    case keyframe, exact
}

/// Which audio output to use.
public enum AudioOutputChoice: Sendable, Equatable {
    /// An ALSA PCM device name (`default`, `pulse`, `hw:0`).
    case alsa(device: String)
    /// No sound, paced in real time.
    case null
}

/// What `load` needs to know.
public struct PlayerOptions: Sendable {
    /// Start position in seconds.
    public var start: Double = 0
    /// Play at most this many seconds from `start`.
    public var length: Double?
    /// Playback speed, 0.25–4.
    public var speed: Double = 1
    /// Index into `MediaInfo.audio` (nil = the default/best track).
    public var audioTrack: Int?
    /// False plays no audio at all (mpv `--aid=no`).
    public var audioEnabled = true
    /// False decodes no video at all (mpv `--vid=no`): the source plays as audio only.
    public var videoEnabled = true
    /// Index into `MediaInfo.video` (nil = the default/first track).
    public var videoTrack: Int?
    /// Index into `MediaInfo.subtitles` (nil = none unless a default/forced track exists).
    public var subtitleTrack: Int?
    public var subtitlesEnabled = true
    /// Audio files whose sound plays with the source's picture (mpv's `--audio-file`): their
    /// audio streams are extra tracks after the source's own, and the first is chosen unless
    /// ``audioTrack`` says otherwise. Local paths or http(s) URLs, opened with the source's rules.
    public var audioFiles: [String] = []
    /// Page URLs through yt-dlp (mpv's `--ytdl`, `--ytdl-format`, `--ytdl-raw-options`).
    public var ytdl = YtdlSettings()
    /// What yt-dlp found for this load (set by the opener: its title and chapters are used).
    var page: PageMedia?
    /// Extra subtitle files to load as tracks (`--sub-file`).
    public var subtitleFiles: [String] = []
    public var httpHeaders: [String: String] {
        get { network.headers }
        set { network.headers = newValue }
    }
    /// How network sources are fetched (headers, user agent, read deadline, retries).
    public var network = NetworkSettings()
    public var audioOutput: AudioOutputChoice = .alsa(device: "default")
    /// Volume in percent, 0–130.
    public var volume: Double = 100
    public var muted = false
    /// Video decoder threads; 0: automatic (``DecoderThreads``).
    public var decodeThreads = 0
    /// H.264/HEVC loop filter skipping (mpv's `--vd-lavc-skiploopfilter`); nil: automatic.
    public var skipLoopFilter: LoopFilterSkip?
    public var policy = SyncPolicy.standard
    /// Seconds opening a source may block.
    public var openTimeout = 15.0
    /// The demuxer cache: how many seconds the demuxer reads ahead of the playhead (mpv's
    /// `--cache-secs`). nil: 30 for network sources, none for local ones (bounded by the packet
    /// queues only). A source with a cache pauses (``Player/isBuffering``) when it runs dry and
    /// goes on once ``cachePauseWait`` seconds are buffered again.
    public var cacheSeconds: Double?
    /// Treat the source as live (true) or not (false); nil: live when a network source has no
    /// length.
    public var live: Bool?
    /// Seconds of a live stream kept behind the live edge for pause, rewind and scrubbing
    /// (0: none, the stream plays as it comes).
    public var timeshiftSeconds = 1800.0
    /// Bytes of the window kept in memory; older parts spill to files in ``timeshiftDirectory``.
    public var timeshiftMemoryBytes = 64 << 20
    /// Bytes of the window kept on disk at most (mpv-like `--timeshift-disk`); the player also
    /// keeps it under a quarter of the spill directory's free space. The oldest part is dropped
    /// past it, whatever the stream's timestamps do.
    public var timeshiftDiskBytes: Int64 = 1 << 30
    /// Where the window spills (a directory per session inside, deleted when it ends); nil: the
    /// temporary directory.
    public var timeshiftDirectory: String?
    /// Which variant of an HLS or DASH stream plays (mpv's `--hls-bitrate`).
    public var variantPreference = VariantPreference.auto
    /// SDR or HDR variants first.
    public var videoRange = VideoRangePreference.auto
    /// An http(s) DASH manifest is played by libavformat's own dash demuxer (which opens its
    /// segments itself: no resume, retry counting or header rules) instead of our reader
    /// (``DASHSource``): `--demuxer-lavf-dash`, the fallback.
    public var lavfDASH = false
    /// Where a live HLS or DASH stream starts: this many segments from the live edge (negative:
    /// back from the last; libavformat's HLS `live_start_index`, which mpv users pass with
    /// `--demuxer-lavf-o`). `--live-start-index`.
    public var liveStartIndex = -3
    /// The cache's length when ``cacheSeconds`` is nil and the source is a network one.
    public var networkCacheSeconds = 30.0
    /// Seconds buffered before playback resumes after running dry (mpv's `--cache-pause-wait`).
    public var cachePauseWait = 1.0
    /// Cancels a load in progress (and later blocking reads) when the host wants out, e.g. on
    /// SIGINT before the screen is up. Nil: the session makes its own.
    public var interrupt: InterruptToken?
    /// Preferred audio and subtitle languages, most wanted first (mpv's `--alang`/`--slang`):
    /// used when no track number is given. `fr`, `fra` and `fre` name the same language.
    public var audioLanguages: [String] = []
    public var subtitleLanguages: [String] = []
    /// Seconds the sound comes after the picture (``Player/setAudioDelay(_:)``).
    public var audioDelay = 0.0
    /// Code page of sidecar subtitle files that are not UTF-8 (mpv's `--sub-codepage`).
    public var subtitleCodepage = "CP1252"

    public init() {}
}

/// A failure the player reports through `state == .error` and `lastError`.
public struct PlayerError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

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
/// 1080p at 30 frames a second, else libavcodec's choice for the cores; a one-thread decoder
/// that cannot keep up (over the last 48 frames the video thread worked more than half of the
/// frame interval per frame at the current speed)
/// is reopened with libavcodec's choice at the next keyframe, and stays so.
///
/// Measured on the 1080p grain clip (aether-bench, 2 cores): frame threads cost 11 % more
/// decode CPU than one thread (median of 6 runs each, ffmpeg -threads 1 against auto), and
/// exact seeks took longer with them (median 229 against 177 ms, p95 436 against 300 ms).
public struct DecoderThreads: Sendable, Equatable {
    /// Threads to open the decoder with (0: libavcodec's choice).
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

    /// Exactly `threads` (0: libavcodec's choice), never changed.
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

    /// The decoder was reopened with libavcodec's choice.
    public mutating func upgraded() {
        current = 0
        adaptive = false
        upgradeWanted = false
    }
}
