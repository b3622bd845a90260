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
    /// `--replaygain` (no, track, album) and the gain it gives the playing file, dB (nil: none).
    public var replayGain = "no"
    public var replayGainDB: Double?
    public var speed = 1.0
    /// 1-based track numbers as mpv counts them (nil: none).
    public var audioTrack: Int?
    public var subtitleTrack: Int?
    public var subtitleDelay = 0.0
    public var audioDelay = 0.0
    /// 0-based position in the playlist (nil: empty).
    public var playlistPosition: Int?
    public var playlistCount = 0
    /// Every item and what it is called (mpv's `playlist`; not observed: it can be long).
    public var playlist = PlaylistTitles()
    /// The file `--stream-record` writes (nil: none).
    public var streamRecord: String?
    /// The item's path or URL as given, and its last path component.
    public var path: String?
    public var filename: String?
    /// The title tag, else the file name (mpv's `media-title`).
    public var mediaTitle: String?
    /// The item's cover as a `file://` URL (MPRIS `mpris:artUrl`); nil: none, or not written yet.
    public var artURL: String?
    public var tags = Tags()
    public var canGoNext = false
    public var canGoPrevious = false
    public var loopFile = false
    public var loopPlaylist = false
    public var shuffle = false
    /// 1-based video track (nil: none).
    public var videoTrack: Int?
    /// The current chapter (0-based; nil: before the first, or none).
    public var chapter: Int?
    public var chapters: [ChapterEntry] = []
    public var tracks: [Track] = []
    /// Container metadata, keys as the file has them (sanitised).
    public var metadata: [String: String] = [:]
    public var video: VideoParams?
    public var fileFormat: String?
    public var fileSize: Int?
    public var buffering = false
    public var seekable = false
    /// Adaptive streams: the playing variant's peak bit rate (`BANDWIDTH`, b/s); the video's
    /// measured bit rate (b/s); the bit-rate switching's throughput estimate (b/s, nil when the
    /// variant is fixed or nothing was measured yet).
    public var hlsBitrate: Int?
    public var videoBitrate: Double?
    public var estimatedThroughput: Double?

    public struct ChapterEntry: Sendable, Equatable {
        public var title: String
        public var time: Double
        public init(title: String, time: Double) { self.title = title; self.time = time }
    }

    /// One entry of mpv's `track-list` (all text sanitised).
    public struct Track: Sendable, Equatable {
        public enum Kind: String, Sendable { case video, audio, sub }
        public var kind: Kind
        /// 1-based within its kind, as `aid`/`sid`/`vid` count.
        public var id: Int
        public var title: String?
        public var language: String?
        public var codec: String
        public var isDefault = false
        public var isForced = false
        public var selected = false
        /// A sidecar file's path (subtitles loaded from a file).
        public var externalFilename: String?
        public var width: Int?
        public var height: Int?
        public var fps: Double?
        public var channels: Int?
        public var sampleRate: Int?
        public init(kind: Kind, id: Int, codec: String) { self.kind = kind; self.id = id; self.codec = codec }

        var node: PropertyValue {
            var m: [String: PropertyValue] = ["type": .string(kind.rawValue), "id": .number(Double(id)),
                                              "codec": .string(codec), "default": .bool(isDefault),
                                              "forced": .bool(isForced), "selected": .bool(selected),
                                              "external": .bool(externalFilename != nil)]
            if let title { m["title"] = .string(title) }
            if let language { m["lang"] = .string(language) }
            if let externalFilename { m["external-filename"] = .string(externalFilename) }
            if let width { m["demux-w"] = .number(Double(width)) }
            if let height { m["demux-h"] = .number(Double(height)) }
            if let fps { m["demux-fps"] = .number(fps) }
            if let channels { m["demux-channel-count"] = .number(Double(channels)) }
            if let sampleRate { m["demux-samplerate"] = .number(Double(sampleRate)) }
            return .map(m)
        }
    }

    /// mpv's `video-params` of the playing video track.
    public struct VideoParams: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Display size (the sample aspect ratio applied).
        public var displayWidth: Int
        public var displayHeight: Int
        public var pixelFormat: String?
        public var primaries: String?
        public var gamma: String?
        public var codec: String
        public var fps: Double?
        public init(width: Int, height: Int, displayWidth: Int, displayHeight: Int, codec: String) {
            self.width = width; self.height = height; self.displayWidth = displayWidth; self.displayHeight = displayHeight
            self.codec = codec
        }

        var node: PropertyValue {
            var m: [String: PropertyValue] = ["w": .number(Double(width)), "h": .number(Double(height)),
                                              "dw": .number(Double(displayWidth)), "dh": .number(Double(displayHeight))]
            if height > 0 { m["aspect"] = .number(Double(displayWidth) / Double(max(1, displayHeight))) }
            if let pixelFormat { m["pixelformat"] = .string(pixelFormat) }
            if let primaries { m["primaries"] = .string(primaries) }
            if let gamma { m["gamma"] = .string(gamma) }
            return .map(m)
        }
    }

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
    /// A property as text, as `get_property_string` says it, for property expansion
    /// (`--title`); nil when it has no value or there is no such property.
    public func text(of name: String) -> String? {
        guard let value = property(name), value != .none else { return nil }
        return IPCSession.text(value, property: name)
    }

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
        case "replaygain": return .string(replayGain)
        case "replaygain-gain": return replayGainDB.map(PropertyValue.number) ?? PropertyValue.none
        case "speed": return .number(speed)
        case "aid": return audioTrack.map { .number(Double($0)) } ?? .bool(false)
        case "sid": return subtitleTrack.map { .number(Double($0)) } ?? .bool(false)
        case "sub-delay": return .number(subtitleDelay)
        case "audio-delay": return .number(audioDelay)
        case "playlist-pos": return .number(Double(playlistPosition ?? -1))
        case "playlist-count": return .number(Double(playlistCount))
        case "playlist": return playlist.property
        case "stream-record": return .string(streamRecord ?? "")
        case "path": return path.map(PropertyValue.string) ?? PropertyValue.none
        case "filename": return filename.map(PropertyValue.string) ?? PropertyValue.none
        case "media-title": return mediaTitle.map(PropertyValue.string) ?? PropertyValue.none
        case "idle-active": return .bool(status == .stopped)
        case "loop-file": return .bool(loopFile)
        case "loop-playlist": return .bool(loopPlaylist)
        case "shuffle": return .bool(shuffle)
        case "vid": return videoTrack.map { .number(Double($0)) } ?? .bool(false)
        case "chapter":
            guard !chapters.isEmpty else { return PropertyValue.none }
            return .number(Double(chapter ?? -1))
        case "chapters": return .number(Double(chapters.count))
        case "chapter-list":
            return .list(chapters.map { .map(["title": .string($0.title), "time": .number($0.time)]) })
        case "track-list": return .list(tracks.map(\.node))
        case "metadata": return status == .stopped ? PropertyValue.none : .map(metadata.mapValues(PropertyValue.string))
        case "width": return video.map { .number(Double($0.width)) } ?? PropertyValue.none
        case "height": return video.map { .number(Double($0.height)) } ?? PropertyValue.none
        case "dwidth": return video.map { .number(Double($0.displayWidth)) } ?? PropertyValue.none
        case "dheight": return video.map { .number(Double($0.displayHeight)) } ?? PropertyValue.none
        case "video-params": return video?.node ?? PropertyValue.none
        case "video-format", "video-codec": return video.map { .string($0.codec) } ?? PropertyValue.none
        case "container-fps": return video?.fps.map(PropertyValue.number) ?? PropertyValue.none
        case "file-format": return fileFormat.map(PropertyValue.string) ?? PropertyValue.none
        case "file-size": return fileSize.map { .number(Double($0)) } ?? PropertyValue.none
        case "time-remaining", "playtime-remaining":
            guard status != .stopped, let d = duration else { return PropertyValue.none }
            let left = max(0, d - position)
            return .number(name == "playtime-remaining" && speed > 0 ? left / speed : left)
        case "paused-for-cache": return .bool(buffering)
        case "seekable": return .bool(seekable)
        case "eof-reached": return .bool(status == .stopped && path != nil)
        case "volume-max": return .number(130)
        case "mpv-version": return .string(PlayerIdentity.versionLine)
        case "hls-bitrate": return hlsBitrate.map { .number(Double($0)) } ?? PropertyValue.none
        case "video-bitrate": return videoBitrate.map(PropertyValue.number) ?? PropertyValue.none
        case "estimated-throughput": return estimatedThroughput.map(PropertyValue.number) ?? PropertyValue.none
        default: return nil
        }
    }

    /// Every property name `property(_:)` answers.
    public static let propertyNames = [
        "pause", "time-pos", "playback-time", "duration", "percent-pos", "volume", "mute", "replaygain", "replaygain-gain", "speed",
        "aid", "sid", "sub-delay", "audio-delay", "playlist-pos", "playlist-count", "path", "filename",
        "media-title", "stream-record", "idle-active", "loop-file", "loop-playlist", "shuffle", "vid", "chapter", "chapters",
        "chapter-list", "track-list", "metadata", "width", "height", "dwidth", "dheight", "video-params",
        "video-format", "video-codec", "container-fps", "file-format", "file-size", "time-remaining",
        "playtime-remaining", "paused-for-cache", "seekable", "eof-reached", "volume-max",
        "hls-bitrate", "video-bitrate", "estimated-throughput", "mpv-version",
    ]
}
