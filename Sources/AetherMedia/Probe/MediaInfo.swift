/// What a media source contains, as `aether-tui probe` reports it. Plain values copied out of the
/// demuxer (no pointers into FFmpeg), every string sanitised for the terminal. It only declares:
/// one stored property per fact `probe --json` reports, and what is derived from them.
public struct MediaInfo: Codable, Sendable, Equatable {
    public var url: String
    /// libavformat's short name, e.g. `matroska,webm`.
    public var container: String
    /// libavformat's long name, e.g. `Matroska / WebM`.
    public var containerLongName: String
    public var title: String?
    /// Source seconds of media time 0 (the container's `start_time`; hours for broadcast
    /// captures). Every other time here and in the player is measured from it.
    public var startTime: Double = 0
    /// Seconds, when the container knows.
    public var duration: Double?
    /// Overall bits per second, when known.
    public var bitRate: Int?
    public var chapters: [Chapter]
    public var video: [VideoStreamInfo]
    public var audio: [AudioStreamInfo]
    public var subtitles: [SubtitleStreamInfo]
    public var attachments: [AttachmentInfo]
    /// Music tags (title, artist, album, track, date, genre).
    public var tags = MediaTags()
    /// Loudness tags (ReplayGain, Opus R128).
    public var replayGain = ReplayGainTags()
    /// A disc's titles (empty: not a disc); the one read is `playing`.
    public var titles: [DiscTitleInfo] = []

    /// A still image (a JPEG, PNG, WebP, BMP, TIFF … file: libavformat's `image2` or one of its
    /// `*_pipe` demuxers), with one picture and no sound: it plays as a picture that stays
    /// (`--image-display-duration`).
    public var isStillImage: Bool {
        audio.isEmpty && video.count == 1 && (container == "image2" || container.hasSuffix("_pipe"))
    }

    /// The video stream the user chose (`--vid=N`, an index into ``video``); nil: automatic.
    public var chosenVideo: Int?

    /// The video stream that plays: the chosen one, else the default one, else the first.
    public var primaryVideo: VideoStreamInfo? {
        if let k = chosenVideo, video.indices.contains(k) { return video[k] }
        return video.first { $0.tags.isDefault } ?? video.first
    }

    /// ``primaryVideo``'s position in ``video``.
    public var primaryVideoPosition: Int? {
        if let k = chosenVideo, video.indices.contains(k) { return k }
        return video.firstIndex { $0.tags.isDefault } ?? (video.isEmpty ? nil : 0)
    }
}

/// A title of a disc (`--edition` picks one; the longest plays without it).
public struct DiscTitleInfo: Codable, Sendable, Equatable {
    public var number: Int
    public var duration: Double
    public var chapters: Int
    public var playing: Bool
    /// A Blu-ray title's playlist file (`00001.MPLS`); nil for a DVD's.
    public var playlist: String?
}

public struct Chapter: Codable, Sendable, Equatable {
    public var title: String?
    public var start: Double
    public var end: Double

    package init(title: String?, start: Double, end: Double) {
        self.title = title
        self.start = start
        self.end = end
    }
}

/// Language, title and disposition, common to every elementary stream.
public struct StreamTags: Codable, Sendable, Equatable {
    public var language: String?
    public var title: String?
    public var isDefault: Bool
    public var isForced: Bool
}

/// A video stream's facts. Its colour coding is grouped in ``Colour``; the JSON form
/// (`probe --json`) is flat, one key per fact.
public struct VideoStreamInfo: Codable, Sendable, Equatable {
    /// Index of the stream in the container.
    public var index: Int
    public var codec: String
    public var codecLongName: String
    public var profile: String?
    public var width: Int
    public var height: Int
    /// Display aspect ratio (width / height after the sample aspect ratio).
    public var displayAspect: Double
    /// Frames per second, snapped to a standard rate when within 0.1 % of one.
    public var frameRate: Double?
    /// `progressive`, `tt`, `bb`, `tb`, `bt` or `unknown` (FFmpeg's field order names).
    public var fieldOrder: String
    public var colour: Colour
    public var format: VideoFormat
    public var dolbyVision: DolbyVisionInfo?
    public var tags: StreamTags
    /// Counter-clockwise quarter turns that make the picture upright (the display matrix): 0,
    /// 90, 180 or 270 (``StillGeometry``'s rule, which playback and every still share).
    public var rotation = 0

    /// How the picture's samples and colours are coded (FFmpeg's names; nil: not stated).
    public struct Colour: Codable, Sendable, Equatable {
        public var pixelFormat: String?
        public var bitDepth: Int?
        public var primaries: String?
        public var transfer: String?
        public var matrix: String?

        enum CodingKeys: String, CodingKey {
            case pixelFormat, bitDepth, primaries = "colorPrimaries", transfer = "colorTransfer", matrix = "colorMatrix"
        }
    }

    /// The picture's size as shown: the coded size turned by ``rotation`` (a phone's 1280×720
    /// at 90° is 720×1280). The probe, the transport bar and IPC's `dwidth` read it.
    public var uprightSize: (width: Int, height: Int) {
        rotation == 90 || rotation == 270 ? (height, width) : (width, height)
    }

    /// The aspect of the picture as shown: ``displayAspect`` turned by ``rotation``.
    public var uprightAspect: Double {
        (rotation == 90 || rotation == 270) && displayAspect > 0 ? 1 / displayAspect : displayAspect
    }

    public var isInterlaced: Bool { ["tt", "bb", "tb", "bt"].contains(fieldOrder) }
}

// The JSON form is flat: ``VideoStreamInfo/Colour`` reads and writes its keys beside these.
extension VideoStreamInfo {
    private enum CodingKeys: String, CodingKey {
        case index, codec, codecLongName, profile, width, height, displayAspect, frameRate, fieldOrder, format, dolbyVision,
             tags, rotation
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = try c.decode(Int.self, forKey: .index)
        codec = try c.decode(String.self, forKey: .codec)
        codecLongName = try c.decode(String.self, forKey: .codecLongName)
        profile = try c.decodeIfPresent(String.self, forKey: .profile)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        displayAspect = try c.decode(Double.self, forKey: .displayAspect)
        frameRate = try c.decodeIfPresent(Double.self, forKey: .frameRate)
        fieldOrder = try c.decode(String.self, forKey: .fieldOrder)
        colour = try Colour(from: decoder)
        format = try c.decode(VideoFormat.self, forKey: .format)
        dolbyVision = try c.decodeIfPresent(DolbyVisionInfo.self, forKey: .dolbyVision)
        tags = try c.decode(StreamTags.self, forKey: .tags)
        rotation = try c.decode(Int.self, forKey: .rotation)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(codec, forKey: .codec)
        try c.encode(codecLongName, forKey: .codecLongName)
        try c.encodeIfPresent(profile, forKey: .profile)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(displayAspect, forKey: .displayAspect)
        try c.encodeIfPresent(frameRate, forKey: .frameRate)
        try c.encode(fieldOrder, forKey: .fieldOrder)
        try colour.encode(to: encoder)
        try c.encode(format, forKey: .format)
        try c.encodeIfPresent(dolbyVision, forKey: .dolbyVision)
        try c.encode(tags, forKey: .tags)
        try c.encode(rotation, forKey: .rotation)
    }
}

/// Dynamic range class of a video stream.
public enum VideoFormat: String, Codable, Sendable, CaseIterable {
    case sdr = "SDR"
    case hdr10 = "HDR10"
    case hdr10Plus = "HDR10+"
    case dolbyVision = "DV"
    case hlg = "HLG"

    /// True when the picture needs tone-mapping to look right on an SDR terminal.
    public var isHDR: Bool { self != .sdr }
}

public struct DolbyVisionInfo: Codable, Sendable, Equatable {
    public var profile: Int
    public var level: Int
    public var hasRPU: Bool
    public var hasEnhancementLayer: Bool
    public var hasBaseLayer: Bool
    /// Base-layer compatibility: 0 none, 1 HDR10, 2 SDR, 4 HLG, 6 Blu-ray.
    public var compatibilityID: Int
}

public struct AudioStreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var codecLongName: String
    public var profile: String?
    public var sampleRate: Int
    public var channels: Int
    /// FFmpeg's layout description, e.g. `5.1(side)`.
    public var layout: String
    /// Badge form: `2.0`, `5.1`, `7.1`.
    public var layoutShort: String
    /// E-AC-3 carrying Joint Object Coding (Dolby Atmos).
    public var isAtmos: Bool
    public var bitRate: Int?
    public var tags: StreamTags
    /// The `--audio-file` this track comes from (nil: the source's own).
    public var externalFile: String? = nil

    public var isDefault: Bool { tags.isDefault }
}

public struct SubtitleStreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var codecLongName: String
    /// `text` or `bitmap`.
    public var kind: SubtitleKind
    public var tags: StreamTags

    public var isDefault: Bool { tags.isDefault }
}

public enum SubtitleKind: String, Codable, Sendable {
    case text, bitmap
}

public struct AttachmentInfo: Codable, Sendable, Equatable {
    public var index: Int
    /// `font`, `cover art` or `other`.
    public var kind: String
    public var filename: String?
    public var mimeType: String?
    public var size: Int
}
