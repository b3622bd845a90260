import AetherCommands

/// Where the player stands, as remote front ends (MPRIS, the IPC socket) read it. The host
/// publishes a fresh one on every tick of its loop (about 30 times a second); reading it never
/// waits for the host.
public struct PlayerSnapshot: Sendable, Equatable {
    public enum Status: String, Sendable { case playing, paused, stopped }

    public var status: Status = .stopped
    /// Seconds into the current item.
    public var position = 0.0
    public var duration: Double?
    public var speed = 1.0
    /// Waiting for the cache (mpv's `paused-for-cache`), and whether a seek can land.
    public var buffering = false
    public var seekable = false
    /// The sound: volume, mute, ReplayGain, its track and delay.
    public var audio = Audio()
    /// The subtitles' track and delay.
    public var subtitles = Subtitles()
    /// The playlist: where in it, how it plays on, what each item is called.
    public var queue = Queue()
    /// The item loaded: what it is, what it says of itself, where it is recorded to.
    public var item = Item()
    /// Its streams: the tracks, the chapters, the picture.
    public var media = Media()
    /// Adaptive streams' bit rates.
    public var adaptive = Adaptive()

    /// The sound's part of the snapshot.
    public struct Audio: Sendable, Equatable {
        /// Percent, 0–130.
        public var volume = 100.0
        public var muted = false
        /// `--replaygain` (no, track, album) and the gain it gives the playing file, dB (nil: none).
        public var replayGain = "no"
        public var replayGainDB: Double?
        /// 1-based track number as mpv counts them (nil: none).
        public var track: Int?
        public var delay = 0.0
        /// The equalizer as `--equalizer` names it (`flat`, a preset, `bands:…`, a path).
        public var equalizer = "flat"
    }

    /// The subtitles' part: the 1-based track (nil: none) and the delay.
    public struct Subtitles: Sendable, Equatable {
        public var track: Int?
        public var delay = 0.0
    }

    /// The playlist's part.
    public struct Queue: Sendable, Equatable {
        /// 0-based position in the playlist (nil: empty).
        public var position: Int?
        public var count = 0
        /// Every item and what it is called (mpv's `playlist`; not observed: it can be long).
        public var titles = PlaylistTitles()
        public var canGoNext = false
        public var canGoPrevious = false
        public var loopFile = false
        public var loopPlaylist = false
        public var shuffle = false
        /// `ab-loop-a`, `ab-loop-b`, `ab-loop-count`.
        public var abLoop = ABLoop()
    }

    /// The item's part.
    public struct Item: Sendable, Equatable {
        /// The item's path or URL as given, and its last path component.
        public var path: String?
        public var filename: String?
        /// The title tag, else the file name (mpv's `media-title`).
        public var mediaTitle: String?
        /// The item's cover as a `file://` URL (MPRIS `mpris:artUrl`); nil: none, or not written yet.
        public var artURL: String?
        public var tags = Tags()
        /// Container metadata, keys as the file has them (sanitised).
        public var metadata: [String: String] = [:]
        public var fileFormat: String?
        public var fileSize: Int?
        /// The file `--stream-record` writes (nil: none).
        public var streamRecord: String?
    }

    /// The streams' part.
    public struct Media: Sendable, Equatable {
        /// 1-based video track (nil: none).
        public var videoTrack: Int?
        /// The current chapter (0-based; nil: before the first, or none).
        public var chapter: Int?
        public var chapters: [ChapterEntry] = []
        public var tracks: [Track] = []
        public var video: VideoParams?
    }

    /// Adaptive streams: the playing variant's peak bit rate (`BANDWIDTH`, b/s); the video's
    /// measured bit rate (b/s); the bit-rate switching's throughput estimate (b/s, nil when the
    /// variant is fixed or nothing was measured yet).
    public struct Adaptive: Sendable, Equatable {
        public var hlsBitrate: Int?
        public var videoBitrate: Double?
        public var estimatedThroughput: Double?
    }

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
        public init(kind: Kind, id: Int, codec: String) {
            self.kind = kind
            self.id = id
            self.codec = codec
        }

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
            self.width = width
            self.height = height
            self.displayWidth = displayWidth
            self.displayHeight = displayHeight
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

    /// A property as text, as `get_property_string` says it, for property expansion
    /// (`--title`, `show-text`); nil when it has no value or there is no such property.
    public func text(of name: String) -> String? {
        guard let value = property(name), value != .none else { return nil }
        return IPCSession.text(value, property: name)
    }

    /// `template` with its `${…}` filled in from this snapshot's properties (``PropertyExpansion``).
    public func expanding(_ template: String) -> String {
        PropertyExpansion.expand(template) { text(of: $0) }
    }

    /// A property by its mpv name (nil: not a property we know).
    public func property(_ name: String) -> PropertyValue? {
        switch name {
        case "pause": return .bool(status == .paused)   // mpv: false with nothing loaded
        case "time-pos", "playback-time": return status == .stopped ? PropertyValue.none : .number(position)
        case "duration": return duration.map(PropertyValue.number) ?? PropertyValue.none
        case "percent-pos":
            guard let d = duration, d > 0 else { return PropertyValue.none }
            return .number(min(100, max(0, position / d * 100)))
        case "volume": return .number(audio.volume)
        case "mute": return .bool(audio.muted)
        case "replaygain": return .string(audio.replayGain)
        case "replaygain-gain": return audio.replayGainDB.map(PropertyValue.number) ?? PropertyValue.none
        case "speed": return .number(speed)
        case "equalizer": return .string(audio.equalizer)
        case "aid": return audio.track.map { .number(Double($0)) } ?? .bool(false)
        case "sid": return subtitles.track.map { .number(Double($0)) } ?? .bool(false)
        case "sub-delay": return .number(subtitles.delay)
        case "audio-delay": return .number(audio.delay)
        case "playlist-pos": return .number(Double(queue.position ?? -1))
        case "playlist-count": return .number(Double(queue.count))
        case "playlist": return queue.titles.property
        case "stream-record": return .string(item.streamRecord ?? "")
        case "path": return item.path.map(PropertyValue.string) ?? PropertyValue.none
        case "filename": return item.filename.map(PropertyValue.string) ?? PropertyValue.none
        case "media-title": return item.mediaTitle.map(PropertyValue.string) ?? PropertyValue.none
        case "idle-active": return .bool(status == .stopped)
        case "loop-file": return .bool(queue.loopFile)
        case "loop-playlist": return .bool(queue.loopPlaylist)
        case "ab-loop-a": return queue.abLoop.a.map(PropertyValue.number) ?? .string("no")
        case "ab-loop-b": return queue.abLoop.b.map(PropertyValue.number) ?? .string("no")
        case "ab-loop-count":
            switch queue.abLoop.count {
            case .infinite: return .string("inf")
            case .no: return .number(0)
            case .times(let n): return .number(Double(n))
            }
        case "shuffle": return .bool(queue.shuffle)
        case "vid": return media.videoTrack.map { .number(Double($0)) } ?? .bool(false)
        case "chapter":
            guard !media.chapters.isEmpty else { return PropertyValue.none }
            return .number(Double(media.chapter ?? -1))
        case "chapters": return .number(Double(media.chapters.count))
        case "chapter-list":
            return .list(media.chapters.map { .map(["title": .string($0.title), "time": .number($0.time)]) })
        case "track-list": return .list(media.tracks.map(\.node))
        case "metadata": return status == .stopped ? PropertyValue.none : .map(item.metadata.mapValues(PropertyValue.string))
        case "width": return media.video.map { .number(Double($0.width)) } ?? PropertyValue.none
        case "height": return media.video.map { .number(Double($0.height)) } ?? PropertyValue.none
        case "dwidth": return media.video.map { .number(Double($0.displayWidth)) } ?? PropertyValue.none
        case "dheight": return media.video.map { .number(Double($0.displayHeight)) } ?? PropertyValue.none
        case "video-params": return media.video?.node ?? PropertyValue.none
        case "video-format", "video-codec": return media.video.map { .string($0.codec) } ?? PropertyValue.none
        case "container-fps": return media.video?.fps.map(PropertyValue.number) ?? PropertyValue.none
        case "file-format": return item.fileFormat.map(PropertyValue.string) ?? PropertyValue.none
        case "file-size": return item.fileSize.map { .number(Double($0)) } ?? PropertyValue.none
        case "time-remaining", "playtime-remaining":
            guard status != .stopped, let d = duration else { return PropertyValue.none }
            let left = max(0, d - position)
            return .number(name == "playtime-remaining" && speed > 0 ? left / speed : left)
        case "paused-for-cache": return .bool(buffering)
        case "seekable": return .bool(seekable)
        case "eof-reached": return .bool(status == .stopped && item.path != nil)
        case "volume-max": return .number(130)
        case "mpv-version": return .string(PlayerIdentity.versionLine)
        case "hls-bitrate": return adaptive.hlsBitrate.map { .number(Double($0)) } ?? PropertyValue.none
        case "video-bitrate": return adaptive.videoBitrate.map(PropertyValue.number) ?? PropertyValue.none
        case "estimated-throughput": return adaptive.estimatedThroughput.map(PropertyValue.number) ?? PropertyValue.none
        default: return nil
        }
    }

    /// Every property name `property(_:)` answers.
    public static let propertyNames = [
        "pause", "time-pos", "playback-time", "duration", "percent-pos", "volume", "mute", "replaygain", "replaygain-gain", "speed",
        "aid", "sid", "sub-delay", "audio-delay", "playlist-pos", "playlist-count", "path", "filename",
        "media-title", "stream-record", "idle-active", "loop-file", "loop-playlist", "ab-loop-a", "ab-loop-b", "ab-loop-count", "shuffle", "vid", "chapter", "chapters",
        "chapter-list", "track-list", "metadata", "width", "height", "dwidth", "dheight", "video-params",
        "video-format", "video-codec", "container-fps", "file-format", "file-size", "time-remaining",
        "playtime-remaining", "paused-for-cache", "seekable", "eof-reached", "volume-max",
        "hls-bitrate", "video-bitrate", "estimated-throughput", "mpv-version",
    ]
}
