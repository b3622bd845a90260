/// Where the player stands, as remote front ends (MPRIS, the IPC socket) read it. The host
/// publishes a fresh one on every tick of its loop (about 30 times a second); reading it never
/// waits for the host.
public struct PlayerSnapshot: Sendable, Equatable {
    public enum Status: String, Sendable { case playing, paused, stopped }

    public var status: Status = .stopped
    /// Seconds into the current item.
    public var position = 0.0
    public var duration: Double?
    /// Percent, 0–130.
    public var volume = 100.0
    public var muted = false
    public var speed = 1.0
    /// 1-based track numbers as mpv counts them (nil: none).
    public var audioTrack: Int?
    public var subtitleTrack: Int?
    public var subtitleDelay = 0.0
    public var audioDelay = 0.0
    /// 0-based position in the playlist (nil: empty).
    public var playlistPosition: Int?
    public var playlistCount = 0
    /// The item's path or URL as given, and its last path component.
    public var path: String?
    public var filename: String?
    /// The title tag, else the file name (mpv's `media-title`).
    public var mediaTitle: String?
    public var tags = Tags()
    public var canGoNext = false
    public var canGoPrevious = false
    public var loopFile = false
    public var loopPlaylist = false
    public var shuffle = false

    /// Tags of the current item (all sanitised).
    public struct Tags: Sendable, Equatable {
        public var title: String?
        public var artist: String?
        public var album: String?
        public var albumArtist: String?
        public var genre: String?
        public var track: Int?
        public var year: String?
        public init() {}
    }

    public init() {}

    /// A property by its mpv name (nil: not a property we know).
    public func property(_ name: String) -> PropertyValue? {
        switch name {
        case "pause": return .bool(status == .paused)   // mpv: false with nothing loaded
        case "time-pos", "playback-time": return status == .stopped ? PropertyValue.none : .number(position)
        case "duration": return duration.map(PropertyValue.number) ?? PropertyValue.none
        case "percent-pos":
            guard let d = duration, d > 0 else { return PropertyValue.none }
            return .number(min(100, max(0, position / d * 100)))
        case "volume": return .number(volume)
        case "mute": return .bool(muted)
        case "speed": return .number(speed)
        case "aid": return audioTrack.map { .number(Double($0)) } ?? .bool(false)
        case "sid": return subtitleTrack.map { .number(Double($0)) } ?? .bool(false)
        case "sub-delay": return .number(subtitleDelay)
        case "audio-delay": return .number(audioDelay)
        case "playlist-pos": return .number(Double(playlistPosition ?? -1))
        case "playlist-count": return .number(Double(playlistCount))
        case "path": return path.map(PropertyValue.string) ?? PropertyValue.none
        case "filename": return filename.map(PropertyValue.string) ?? PropertyValue.none
        case "media-title": return mediaTitle.map(PropertyValue.string) ?? PropertyValue.none
        case "idle-active": return .bool(status == .stopped)
        case "loop-file": return .bool(loopFile)
        case "loop-playlist": return .bool(loopPlaylist)
        case "shuffle": return .bool(shuffle)
        default: return nil
        }
    }

    /// Every property name `property(_:)` answers.
    public static let propertyNames = [
        "pause", "time-pos", "playback-time", "duration", "percent-pos", "volume", "mute", "speed",
        "aid", "sid", "sub-delay", "audio-delay", "playlist-pos", "playlist-count", "path", "filename",
        "media-title", "idle-active", "loop-file", "loop-playlist", "shuffle",
    ]
}
