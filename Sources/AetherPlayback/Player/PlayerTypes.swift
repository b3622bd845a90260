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

    /// The device as mpv's `--audio-device` names it (`alsa/default`, `null`): what a choice kept
    /// per device (``EqualizerMemory``) is kept under.
    public var name: String {
        switch self {
        case .alsa(let device): "alsa/" + device
        case .null: "null"
        }
    }
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

/// What `load` needs to know, grouped by what each part decides: what plays (start, length,
/// tracks), what the user sets while it plays, the sound, the picture, the subtitles, how a
/// network or live stream is read and kept, and how the session keeps and reads time.
public struct PlayerOptions: Sendable {
    /// Start position in seconds.
    public var start: Double = 0
    /// Play at most this many seconds from `start`.
    public var length: Double?
    /// `--stream-record`: the file the source's packets are written to, from its open on
    /// (``StreamRecorder``); nil: none.
    public var streamRecord: String?
    /// The speed, volume, mute and audio delay the item starts with.
    public var playing = PlaybackSettings()
    public var audio = Audio()
    public var video = Video()
    public var subtitles = Subtitles()
    /// Page URLs through yt-dlp (mpv's `--ytdl`, `--ytdl-format`, `--ytdl-raw-options`).
    public var ytdl = YtdlSettings()
    /// What yt-dlp found for this load (set by the opener: its title and chapters are used).
    var page: PageMedia?
    /// How network sources are fetched (headers, user agent, read deadline, retries).
    public var network = NetworkSettings()
    public var httpHeaders: [String: String] {
        get { network.headers }
        set { network.headers = newValue }
    }
    public var stream = Stream()
    public var timeshift = Timeshift()
    public var policy = SyncPolicy.standard
    /// The clock every decision of the session reads (pacing, drops, the end, the device's
    /// waits, cost): ``TimeSource/monotonic`` in the player, a ``ManualTimeSource`` in tests.
    /// Given, never defaulted: options made without it would run on the real clock unseen.
    public var time: TimeSource
    public var opening = Opening()

    public init(time: TimeSource) { self.time = time }

    /// The sound: which track, the device and how it is fed.
    public struct Audio: Sendable {
        /// False plays no audio at all (mpv `--aid=no`).
        public var enabled = true
        /// Index into `MediaInfo.audio` (nil = the default/best track).
        public var track: Int?
        /// Preferred languages, most wanted first (mpv's `--alang`): used when no track number
        /// is given. `fr`, `fra` and `fre` name the same language.
        public var languages: [String] = []
        /// Audio files whose sound plays with the source's picture (mpv's `--audio-file`): their
        /// audio streams are extra tracks after the source's own, and the first is chosen unless
        /// ``track`` says otherwise. Local paths or http(s) URLs, opened with the source's rules.
        public var files: [String] = []
        public var output: AudioOutputChoice = .alsa(device: "default")
        /// The device buffer asked for, in seconds (mpv's `--audio-buffer`, 0.2 s as mpv): what
        /// the sound plays on while the audio thread waits for the processor.
        public var bufferSeconds = 0.2
        /// How many channels the device is asked for (mpv's `--audio-channels`).
        public var channels = AudioChannels.autoSafe
        /// libavfilter audio filters applied to the sound before the speed and the resampler
        /// (mpv's `--af`, in libavfilter's syntax); empty: none.
        public var filters = ""
        /// `--gapless-audio`: whether ``Player/prepareNext(url:options:)`` may continue the device.
        public var gapless = GaplessMode.weak
        /// Loudness by the file's tags (mpv's `--replaygain*`), applied before the volume.
        public var replayGain = ReplayGainSettings()
    }

    /// The picture: which track and how it is decoded.
    public struct Video: Sendable {
        /// False decodes no video at all (mpv `--vid=no`): the source plays as audio only.
        public var enabled = true
        /// Index into `MediaInfo.video` (nil = the default/first track).
        public var track: Int?
        /// Decoder threads; 0: automatic (``DecoderThreads``).
        public var decodeThreads = 0
        /// H.264/HEVC loop filter skipping (mpv's `--vd-lavc-skiploopfilter`); nil: automatic.
        public var skipLoopFilter: LoopFilterSkip?
    }

    /// The subtitles: which track, the files added as tracks, and how those are read.
    public struct Subtitles: Sendable {
        public var enabled = true
        /// Index into `MediaInfo.subtitles` (nil = none unless a default/forced track exists).
        public var track: Int?
        /// Preferred languages, most wanted first (mpv's `--slang`), as ``Audio/languages``.
        public var languages: [String] = []
        /// Extra subtitle files to load as tracks (`--sub-file`).
        public var files: [String] = []
        /// Code page of sidecar subtitle files that are not UTF-8 (mpv's `--sub-codepage`).
        public var codepage = "CP1252"
    }

    /// How a network or live stream is read: the demuxer cache, the variant of an HLS or DASH
    /// stream, which DASH reader, and where a live one starts.
    public struct Stream: Sendable {
        /// The demuxer cache: how many seconds the demuxer reads ahead of the playhead (mpv's
        /// `--cache-secs`). nil: 30 for network sources, none for local ones (bounded by the
        /// packet queues only). A source with a cache pauses (``Player/isBuffering``) when it
        /// runs dry and goes on once ``cachePauseWait`` seconds are buffered again.
        public var cacheSeconds: Double?
        /// The cache's length when ``cacheSeconds`` is nil and the source is a network one.
        public var networkCacheSeconds = 30.0
        /// Seconds buffered before playback resumes after running dry (mpv's `--cache-pause-wait`).
        public var cachePauseWait = 1.0
        /// Which variant of an HLS or DASH stream plays (mpv's `--hls-bitrate`).
        public var variantPreference = VariantPreference.auto
        /// SDR or HDR variants first.
        public var videoRange = VideoRangePreference.auto
        /// An http(s) DASH manifest is played by libavformat's own dash demuxer (which opens its
        /// segments itself: no resume, retry counting or header rules) instead of our reader
        /// (``DASHSource``): `--demuxer-lavf-dash`, the fallback.
        public var lavfDASH = false
        /// Treat the source as live (true) or not (false); nil: live when a network source has
        /// no length.
        public var live: Bool?
        /// Where a live HLS or DASH stream starts: this many segments from the live edge
        /// (negative: back from the last; libavformat's HLS `live_start_index`, which mpv users
        /// pass with `--demuxer-lavf-o`). `--live-start-index`.
        public var liveStartIndex = -3
        /// A disc's title (1-based; nil: the main title, the longest). `--edition`.
        public var discTitle: Int?
    }

    /// The window kept of a live stream for pause, rewind and scrubbing.
    public struct Timeshift: Sendable {
        /// Seconds kept behind the live edge (0: none, the stream plays as it comes).
        public var seconds = 1800.0
        /// Bytes of the window kept in memory; older parts spill to files in ``directory``.
        public var memoryBytes = 64 << 20
        /// Bytes of the window kept on disk at most (mpv-like `--timeshift-disk`); the player
        /// also keeps it under a quarter of the spill directory's free space. The oldest part is
        /// dropped past it, whatever the stream's timestamps do.
        public var diskBytes: Int64 = 1 << 30
        /// Where the window spills (a directory per session inside, deleted when it ends); nil:
        /// the temporary directory.
        public var directory: String?
    }

    /// How long opening may block, and what cancels it.
    public struct Opening: Sendable {
        /// Seconds opening a source may block.
        public var timeout = 15.0
        /// Cancels a load in progress (and later blocking reads) when the host wants out, e.g.
        /// on SIGINT before the screen is up. Nil: the session makes its own.
        public var interrupt: InterruptToken?
    }
}

/// What the user sets while an item plays (mpv's `--speed`, `--volume`, `--mute`,
/// `--audio-delay`), each kept within its bounds by the player: the options an item starts
/// with (``PlayerOptions/playing``) and the session's own (changed by ``Player``).
public struct PlaybackSettings: Sendable, Equatable {
    /// Playback speed, 0.25–4; audio keeps its pitch.
    public var rate = 1.0
    /// Volume in percent, 0–130.
    public var volume = 100.0
    public var muted = false
    /// Seconds the sound comes after the picture (mpv's `--audio-delay`; negative: before),
    /// ±10: frames are shown when the audio clock reaches their pts minus this.
    public var audioDelay = 0.0
    /// `--equalizer`: the curve the sound goes through first (flat: none). Kept for the items
    /// after, as the volume is.
    public var equalizer = EqualizerSetting.flat

    public init() {}

    static func bounded(rate: Double) -> Double { min(4, max(0.25, rate)) }
    static func bounded(volume: Double) -> Double { min(130, max(0, volume)) }
    static func bounded(audioDelay: Double) -> Double { min(10, max(-10, audioDelay)) }

    /// These settings within their bounds (a delay that is not a number: none).
    var bounded: PlaybackSettings {
        var s = self
        s.rate = Self.bounded(rate: rate)
        s.volume = Self.bounded(volume: volume)
        s.audioDelay = audioDelay.isFinite ? Self.bounded(audioDelay: audioDelay) : 0
        return s
    }
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
