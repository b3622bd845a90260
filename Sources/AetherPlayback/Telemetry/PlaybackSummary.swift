import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The last line of a stats file: what one playback cost and how well it kept time, grouped by
/// what each part describes. Written as one flat JSON object (`{"summary": …}`): every group
/// writes its keys beside the others', under the names they always had.
public struct PlaybackSummary: Codable, Sendable {
    public var mediaSeconds: Double
    public var wallSeconds: Double
    /// From the first audible/presented moment to the end (excludes open and device start-up).
    public var playingWallSeconds: Double
    public var cpuSeconds: Double
    public var peakRSSKiB: Int
    public var endedEarly: String?
    public var interrupted: Bool
    /// Written with `framesDropped`, their sum of late and early drops.
    public var frames: FrameCounts
    public var sync: Sync
    public var audio: Audio
    /// Terminal hosts only (``describe``).
    public var terminal = Terminal()
    public var item: Item
    public var network = Network()
    public var media = Media()

    /// The clock and the A/V gap over every frame presented (milliseconds).
    public struct Sync: Codable, Sendable {
        public var clockSource: String
        public var gapMeanMs: Double
        public var gapP95Ms: Double
        public var gapMaxMs: Double

        enum CodingKeys: String, CodingKey {
            case clockSource, gapMeanMs = "avGapMeanMs", gapP95Ms = "avGapP95Ms", gapMaxMs = "avGapMaxMs"
        }
    }

    public struct Audio: Codable, Sendable {
        public var device: String
        /// What the device plays (`48000 Hz s16 stereo`); nil without sound.
        public var format: String?

        enum CodingKeys: String, CodingKey { case device = "audioDevice", format = "audioFormat" }
    }

    /// The renderer, frames it painted, bytes it wrote to the terminal.
    public struct Terminal: Codable, Sendable {
        public var renderer: String?
        /// Where the output's governor left it (`sixel 128 colours ×0.75 24 fps (governed)`),
        /// or the renderer's name when nothing was governed.
        public var output: String?
        public var framesPainted: Int?
        public var bytes: Int?
        /// Inside tmux: pictures its passthrough dropped (a delivery check unanswered) and sent again.
        public var picturesLostInTmux: Int?

        enum CodingKeys: String, CodingKey { case renderer, output, framesPainted, bytes = "terminalBytes", picturesLostInTmux }
    }

    /// The item this summary is for, and its place in the playlist (0-based); where it started
    /// (a resumed position, `--start`), and its tracks (1-based, nil: none) and volume when it ended.
    public struct Item: Codable, Sendable {
        public var source: String?
        public var playlistPosition: Int?
        public var startPosition: Double?
        public var audioTrack: Int?
        public var subtitleTrack: Int?
        public var volume: Double?
        public var muted: Bool?
    }

    /// Network sources: times playback stopped to refill the cache, reconnects, body bytes;
    /// with bit-rate switching, switches made and the last throughput estimate (b/s).
    public struct Network: Codable, Sendable {
        public var rebuffers: Int?
        public var retries: Int?
        public var bytes: Int64?
        public var variantSwitches: Int?
        public var estimatedThroughput: Double?
        public var discontinuities: Int?

        enum CodingKeys: String, CodingKey {
            case rebuffers, retries = "networkRetries", bytes = "networkBytes", variantSwitches, estimatedThroughput, discontinuities
        }
    }

    /// What the source is, as the player opened it: its length (nil: unknown, live), the codecs
    /// of the video and audio playing, and where its chapters start (seconds).
    public struct Media: Codable, Sendable {
        public var duration: Double?
        public var videoCodec: String?
        public var audioCodec: String?
        public var chapterStarts: [Double]?
    }

    enum CodingKeys: String, CodingKey {
        case mediaSeconds, wallSeconds, playingWallSeconds, cpuSeconds, peakRSSKiB, endedEarly, interrupted, framesDropped
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mediaSeconds = try c.decode(Double.self, forKey: .mediaSeconds)
        wallSeconds = try c.decode(Double.self, forKey: .wallSeconds)
        playingWallSeconds = try c.decode(Double.self, forKey: .playingWallSeconds)
        cpuSeconds = try c.decode(Double.self, forKey: .cpuSeconds)
        peakRSSKiB = try c.decode(Int.self, forKey: .peakRSSKiB)
        endedEarly = try c.decodeIfPresent(String.self, forKey: .endedEarly)
        interrupted = try c.decode(Bool.self, forKey: .interrupted)
        // Every group reads its keys from the same object (`framesDropped` is the frames' sum).
        (frames, sync, audio, terminal) = try (FrameCounts(from: decoder), Sync(from: decoder), Audio(from: decoder), Terminal(from: decoder))
        (item, network, media) = try (Item(from: decoder), Network(from: decoder), Media(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mediaSeconds, forKey: .mediaSeconds)
        try c.encode(wallSeconds, forKey: .wallSeconds)
        try c.encode(playingWallSeconds, forKey: .playingWallSeconds)
        try c.encode(cpuSeconds, forKey: .cpuSeconds)
        try c.encode(peakRSSKiB, forKey: .peakRSSKiB)
        try c.encodeIfPresent(endedEarly, forKey: .endedEarly)
        try c.encode(interrupted, forKey: .interrupted)
        try c.encode(frames.dropped, forKey: .framesDropped)
        // Every group writes its keys into the same object.
        for group in [frames, sync, audio, terminal, item, network, media] as [any Encodable] { try group.encode(to: encoder) }
    }

    /// Gathers the figures from `player` (call before stopping it).
    public init(player: Player, startPosition: Double, wallSeconds: Double, interrupted: Bool) {
        let t = player.telemetry(advance: false)
        let gaps = player.gapStatistics
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        mediaSeconds = max(0, player.currentTime - startPosition)
        self.wallSeconds = wallSeconds
        playingWallSeconds = player.playingWallSeconds ?? 0
        frames = t.frames
        sync = Sync(clockSource: t.sync.clockSource, gapMeanMs: gaps.mean * 1000, gapP95Ms: gaps.p95 * 1000, gapMaxMs: gaps.max * 1000)
        cpuSeconds = Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
        peakRSSKiB = PeakMemory.residentKiB()
        audio = Audio(device: t.audio.device, format: t.audio.format.isEmpty ? nil : t.audio.format)
        endedEarly = player.endedEarlyMessage
        self.interrupted = interrupted
        item = Item(startPosition: startPosition, audioTrack: player.activeAudioTrack.map { $0 + 1 },
                    subtitleTrack: player.activeSubtitleTrack.map { $0 + 1 }, volume: player.volume, muted: player.isMuted)
        if let net = player.networkStatus {
            network.rebuffers = t.network.rebuffers
            network.retries = net.retries
            network.bytes = net.bytes
            network.discontinuities = net.discontinuities > 0 ? net.discontinuities : nil
        } else if t.network.rebuffers > 0 {
            network.rebuffers = t.network.rebuffers
        }
        if let adaptive = player.adaptive {
            network.variantSwitches = adaptive.switchCount
            network.estimatedThroughput = adaptive.estimate.map { $0.rounded() }
        }
        if let info = player.mediaInfo {
            media.duration = info.duration
            media.videoCodec = info.video.indices.contains(info.chosenVideo ?? 0) ? info.video[info.chosenVideo ?? 0].codec : nil
            media.audioCodec = player.activeAudioTrack.flatMap { info.audio.indices.contains($0) ? info.audio[$0].codec : nil }
            media.chapterStarts = info.chapters.isEmpty ? nil : info.chapters.map(\.start)
        }
    }
}
