import AetherMedia
import AetherStreaming
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

/// `--gapless-audio` (mpv's names): whether the next playlist item's sound follows the last
/// sample of this one on the same device, without draining it.
public enum GaplessMode: String, Sendable, CaseIterable {
    /// Every item drains the device and opens it again.
    case no
    /// The next item continues the device, resampled to its format when they differ.
    case yes
    /// It continues when rate and channels match, else the ordinary switch (the default).
    case weak
}

/// mpv's `--audio-channels`: the channels the sound is converted to and the device is asked
/// for. libswresample downmixes (centre and surrounds kept) or upmixes; a count's layout is
/// FFmpeg's default for it (6: 5.1, 8: 7.1).
public enum AudioChannels: Sendable, Equatable {
    /// The source's, at most two (the default, mpv's `auto-safe`): every device plays it.
    case autoSafe
    /// The source's, at most eight.
    case auto
    /// This many (1–8): `mono` is 1, `stereo` 2, `5.1` 6, `7.1` 8.
    case count(Int)

    /// The channels for a source of `source` channels.
    public func channels(source: Int) -> Int {
        let source = max(1, source)
        switch self {
        case .autoSafe: return min(2, source)
        case .auto: return min(8, source)
        case .count(let n): return min(8, max(1, n))
        }
    }

    /// The value in mpv's spelling (`auto-safe`, `mono`, `6`).
    public var option: String {
        switch self {
        case .autoSafe: return "auto-safe"
        case .auto: return "auto"
        case .count(1): return "mono"
        case .count(2): return "stereo"
        case .count(let n): return String(n)
        }
    }

    /// mpv's spellings: `auto-safe`, `auto`, `mono`, `stereo`, `5.1`, `7.1`, or a count 1–8.
    public init?(option: String) {
        switch option {
        case "auto-safe": self = .autoSafe
        case "auto": self = .auto
        case "mono": self = .count(1)
        case "stereo": self = .count(2)
        case "5.1": self = .count(6)
        case "7.1": self = .count(8)
        default:
            guard let n = Int(option), (1...8).contains(n) else { return nil }
            self = .count(n)
        }
    }
}

/// What `load` needs to know.
public struct PlayerOptions: Sendable {
    /// Start position in seconds.
    public var start: Double = 0
    /// `--stream-record`: the file the source's packets are written to, from its open on
    /// (``StreamRecorder``); nil: none.
    public var streamRecord: String?
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
    /// The device buffer asked for, in seconds (mpv's `--audio-buffer`, 0.2 s as mpv): what the
    /// sound plays on while the audio thread waits for the processor.
    public var audioBufferSeconds = 0.2
    /// `--gapless-audio`: whether ``Player/prepareNext(url:options:)`` may continue the device.
    public var gapless = GaplessMode.weak
    /// How many channels the device is asked for (mpv's `--audio-channels`).
    public var audioChannels = AudioChannels.autoSafe
    /// libavfilter audio filters applied to the sound before the speed and the resampler (mpv's
    /// `--af`, in libavfilter's syntax); empty: none.
    public var audioFilters = ""
    /// Volume in percent, 0–130.
    public var volume: Double = 100
    public var muted = false
    /// Loudness by the file's tags (mpv's `--replaygain*`), applied before the volume.
    public var replayGain = ReplayGainSettings()
    /// Video decoder threads; 0: automatic (``DecoderThreads``).
    public var decodeThreads = 0
    /// H.264/HEVC loop filter skipping (mpv's `--vd-lavc-skiploopfilter`); nil: automatic.
    public var skipLoopFilter: LoopFilterSkip?
    public var policy = SyncPolicy.standard
    /// The clock every decision of the session reads (pacing, drops, the end, the device's
    /// waits, cost): ``TimeSource/monotonic`` in the player, a ``ManualTimeSource`` in tests.
    public var time = TimeSource.monotonic
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

extension PlayerOptions {
    /// These options with the start and length made safe: they may come from outside (a
    /// watch-later entry, a config file): finite, ±31 years. Every load and every item prepared
    /// for gapless playback goes through it.
    var checkedTimes: PlayerOptions {
        var options = self
        options.start = (try? OutsideValue.seconds(start, name: "start")) ?? 0
        options.length = length.flatMap { try? OutsideValue.seconds($0, name: "length") }
        return options
    }
}
