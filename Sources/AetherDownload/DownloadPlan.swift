import AetherBase
import AetherStreaming
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What `aether-tui download` fetches, whatever the source's format: one video track and the
/// chosen audio and subtitle tracks, each a list of segments to fetch in order and join. HLS
/// makes one from a master and its media playlists (``HLSDownloadPlanner``); a DASH manifest
/// translated into per-representation segment lists can make one the same way. The
/// ``Downloader`` reads nothing else of the source: no playlist text, no manifest.
public struct DownloadPlan: Sendable, Equatable {
    /// The source's URL (for messages and the state's fingerprint).
    public var source: String
    public var tracks: [DownloadTrack]
    /// What was asked for but left out, one line each for the user (not part of the
    /// fingerprint: it decides no byte).
    public var notes: [String] = []

    public init(source: String, tracks: [DownloadTrack]) {
        self.source = source
        self.tracks = tracks
    }

    /// The tracks that begin an output stream (not ``DownloadTrack/continues``).
    public var streams: [DownloadTrack] { tracks.filter { !$0.continues } }

    /// Every segment of every track.
    public var segmentCount: Int { tracks.reduce(0) { $0 + $1.segments.count } }

    /// A digest of everything that decides the downloaded bytes (URIs, keys, IVs, order, the
    /// container format): a state directory written for another plan is not resumed.
    public func fingerprint(format: String) -> String {
        var text = "aether-tui download plan 1\n\(format)\n\(source)\n"
        for (i, track) in tracks.enumerated() {
            text += "track \(i) \(track.kind.rawValue) \(track.initSection ?? "-") \(Self.describe(track.initRange))\(track.continues ? " continues" : "")\n"
            for segment in track.segments {
                text += "\(segment.uri) \(segment.sequence) \(Self.describe(segment.byteRange)) "
                    + "\(segment.key.map { "\($0.method) \($0.uri ?? "-") \($0.iv.map { HexText.string($0) } ?? "seq")" } ?? "clear")\n"
            }
        }
        return HexText.string(SHA256.digest(Array(text.utf8)))
    }
}

extension DownloadPlan {
    static func describe(_ range: HLSMediaPlaylist.ByteRange?) -> String {
        range.map { "\($0.length)@\($0.offset)" } ?? "whole"
    }
}

/// One track of a ``DownloadPlan``: its segments and the tags it gets in the output.
public struct DownloadTrack: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case video, audio, subtitle
    }
    public var kind: Kind
    /// `NAME` (sanitised when written).
    public var name: String?
    /// `LANGUAGE` as given (the output gets its ISO 639-2 form where known).
    public var language: String?
    public var isDefault: Bool
    /// Bits per second expected (for progress and ETA before the bytes are known).
    public var bitrate: Int
    /// For a video track: its segments also carry the sound (no separate audio rendition was
    /// chosen), so the output keeps their audio streams.
    public var keepsMuxedAudio = false
    /// An init section (`EXT-X-MAP`, a DASH `initialization`) fetched before the segments,
    /// and the bytes of it to fetch (a DASH `SegmentBase`'s `Initialization range`).
    public var initSection: String?
    public var initRange: HLSMediaPlaylist.ByteRange?
    public var segments: [DownloadSegment]
    /// Its media goes on in the stream of the track before it in the plan, which has the same
    /// kind (a later DASH period with an init section of its own: read by a demuxer of its own,
    /// written into the one output stream).
    public var continues = false
    /// An HLS media playlist's part (its segments between discontinuities): seconds on the
    /// playlist's timeline where it starts. The remux places its timestamps there
    /// (``HLSSplice``), as playback does. Nil: the timestamps are taken as they are.
    public var timelineStart: Double?

    public init(kind: Kind, name: String? = nil, language: String? = nil, isDefault: Bool = false, bitrate: Int,
                segments: [DownloadSegment]) {
        self.kind = kind
        self.name = name
        self.language = language
        self.isDefault = isDefault
        self.bitrate = bitrate
        self.segments = segments
    }

    /// Seconds of media.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

/// One segment: where it is, how long it plays, and how it is encrypted.
public struct DownloadSegment: Sendable, Equatable {
    public var uri: String
    public var duration: Double
    /// Media sequence number (the AES-128 IV when the key gives none).
    public var sequence: Int
    public var key: HLSMediaPlaylist.SegmentKey?
    /// Only these bytes of `uri` (`EXT-X-BYTERANGE`, a DASH `sidx` reference).
    public var byteRange: HLSMediaPlaylist.ByteRange?
    /// Seconds added to the cue times of a WebVTT segment that has no `X-TIMESTAMP-MAP`: a DASH
    /// text segment's period start (its cues count from the period's start).
    public var cueOffset = 0.0
    /// Seconds added to the timestamps of its audio and video: a later DASH period's media on
    /// the one timeline (``DASHManifest/Segment/timeOffset``; 0 for one period).
    public var timeOffset = 0.0

    public init(uri: String, duration: Double, sequence: Int, key: HLSMediaPlaylist.SegmentKey? = nil,
                byteRange: HLSMediaPlaylist.ByteRange? = nil) {
        self.uri = uri
        self.duration = duration
        self.sequence = sequence
        self.key = key
        self.byteRange = byteRange
    }
}

/// What was asked for: the variant choice and the renditions (`--hls-bitrate`, `--video-range`,
/// `--alang`, `--slang`).
public struct DownloadRequest: Sendable, Equatable {
    public var preference: VariantPreference = .max
    public var range: VideoRangePreference = .auto
    /// Audio languages to keep, in order; empty: the default rendition (or the first); `all`:
    /// every one of the variant's group.
    public var audioLanguages: [String] = []
    /// Subtitle languages to keep; empty: the renditions marked `DEFAULT=YES`; `all`: every
    /// one; `no`: none.
    public var subtitleLanguages: [String] = []

    public init() {}
}

