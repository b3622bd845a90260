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
    /// Index into `MediaInfo.subtitles` (nil = none unless a default/forced track exists).
    public var subtitleTrack: Int?
    public var subtitlesEnabled = true
    /// Extra subtitle files to load as tracks (`--sub-file`).
    public var subtitleFiles: [String] = []
    public var httpHeaders: [String: String] = [:]
    public var audioOutput: AudioOutputChoice = .alsa(device: "default")
    /// Volume in percent, 0–130.
    public var volume: Double = 100
    public var muted = false
    /// Decoder threads (0 = as many as cores).
    public var decodeThreads = 0
    public var policy = SyncPolicy.standard
    /// Seconds opening a source may block.
    public var openTimeout = 15.0
    /// Cancels a load in progress (and later blocking reads) when the host wants out, e.g. on
    /// SIGINT before the screen is up. Nil: the session makes its own.
    public var interrupt: InterruptToken?
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
