import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `--stats-file`: telemetry as JSON lines at 1 Hz (`{"telemetry": …}`) and one final
/// `{"summary": …}` line, for whichever host plays (headless or the TUI).
public final class StatsFile {
    private let fd: Int32
    private let encoder = JSONEncoder()

    public init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PlayerError("cannot write stats file '\(path)': \(String(cString: strerror(errno)))", cause: .system(errno: errno)) }
        self.fd = fd
        encoder.outputFormatting = [.sortedKeys]
    }

    deinit { close(fd) }

    /// Variant switches already written (of the current item).
    private var switchesWritten = 0

    /// The 1 Hz line: `{"telemetry": …}`, then one `{"switch": …}` line per variant switch since
    /// the last call (its position, the variants' numbers and peak rates, the reason, the
    /// estimate and the buffer when it was decided).
    public func record(_ telemetry: TelemetrySnapshot, player: Player) {
        write("telemetry", telemetry)
        writeSwitches(player: player)
    }

    /// The `{"switch": …}` lines not written yet: with each telemetry line, and before the
    /// summary (a switch in the last second before quitting is in the file too).
    public func writeSwitches(player: Player) {
        guard let adaptive = player.adaptive else { switchesWritten = 0; return }
        if adaptive.switchCount < switchesWritten { switchesWritten = 0 }
        let new = adaptive.switchCount - switchesWritten
        for change in adaptive.switches.suffix(min(new, adaptive.switches.count)) { write("switch", change) }
        switchesWritten = adaptive.switchCount
    }

    /// The item's summary line, after the switches it has not written yet.
    public func writeSummary(_ summary: PlaybackSummary, player: Player) {
        writeSwitches(player: player)
        write("summary", summary)
    }

    public func write<T: Encodable>(_ key: String, _ value: T) {
        guard let data = try? encoder.encode([key: value]) else { return }
        FileBytes.writeAll([UInt8](data) + [UInt8(ascii: "\n")], to: fd)
    }
}

/// The last line of a stats file: what one playback cost and how well it kept time.
public struct PlaybackSummary: Codable, Sendable {
    public var mediaSeconds: Double
    public var wallSeconds: Double
    /// From the first audible/presented moment to the end (excludes open and device start-up).
    public var playingWallSeconds: Double
    public var framesDecoded: Int
    public var framesPresented: Int
    public var framesDropped: Int
    public var framesDroppedLate: Int
    public var framesDroppedEarly: Int
    /// Frames a host painting on its own thread replaced before showing them (terminal too slow).
    public var framesSuperseded: Int
    public var avGapMeanMs: Double
    public var avGapP95Ms: Double
    public var avGapMaxMs: Double
    public var cpuSeconds: Double
    public var peakRSSKiB: Int
    public var clockSource: String
    public var audioDevice: String
    /// What the device plays (`48000 Hz s16 stereo`); nil without sound.
    public var audioFormat: String?
    public var endedEarly: String?
    public var interrupted: Bool
    /// Terminal hosts only: the renderer, frames it painted, bytes it wrote to the terminal.
    public var renderer: String?
    /// Where the output's governor left it (`sixel 128 colours ×0.75 24 fps (governed)`), or the
    /// renderer's name when nothing was governed.
    public var output: String?
    public var framesPainted: Int?
    public var terminalBytes: Int?
    /// Inside tmux: pictures its passthrough dropped (a delivery check unanswered) and sent again.
    public var picturesLostInTmux: Int?
    /// The item this summary is for, and its place in the playlist (0-based).
    public var source: String?
    public var playlistPosition: Int?
    /// Where the item started (a resumed position, `--start`), and its tracks (1-based, nil:
    /// none) and volume when it ended.
    public var startPosition: Double?
    public var audioTrack: Int?
    public var subtitleTrack: Int?
    public var volume: Double?
    public var muted: Bool?
    /// Network sources: times playback stopped to refill the cache, reconnects, body bytes.
    public var rebuffers: Int?
    public var networkRetries: Int?
    public var networkBytes: Int64?
    /// Bit-rate switching: switches made and the last throughput estimate (b/s).
    public var variantSwitches: Int?
    public var estimatedThroughput: Double?
    /// What the source is, as the player opened it: its length (nil: unknown, live), the codecs
    /// of the video and audio playing, and where its chapters start (seconds).
    public var duration: Double?
    public var videoCodec: String?
    public var audioCodec: String?
    public var chapterStarts: [Double]?

    /// Gathers the figures from `player` (call before stopping it).
    public init(player: Player, startPosition: Double, wallSeconds: Double, interrupted: Bool) {
        let t = player.telemetry(advance: false)
        let gaps = player.gapStatistics
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        mediaSeconds = max(0, player.currentTime - startPosition)
        self.wallSeconds = wallSeconds
        playingWallSeconds = player.playingWallSeconds ?? 0
        framesDecoded = t.framesDecoded
        framesPresented = t.framesPresented
        framesDropped = t.framesDropped
        framesDroppedLate = t.framesDroppedLate
        framesDroppedEarly = t.framesDroppedEarly
        framesSuperseded = t.framesSuperseded
        avGapMeanMs = gaps.mean * 1000
        avGapP95Ms = gaps.p95 * 1000
        avGapMaxMs = gaps.max * 1000
        cpuSeconds = Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
        peakRSSKiB = PeakMemory.residentKiB()
        clockSource = t.clockSource
        audioDevice = t.audioDevice
        audioFormat = t.audioFormat.isEmpty ? nil : t.audioFormat
        endedEarly = player.endedEarlyMessage
        self.interrupted = interrupted
        self.startPosition = startPosition
        audioTrack = player.activeAudioTrack.map { $0 + 1 }
        subtitleTrack = player.activeSubtitleTrack.map { $0 + 1 }
        volume = player.volume
        muted = player.isMuted
        if let net = player.networkStatus {
            rebuffers = t.rebuffers
            networkRetries = net.retries
            networkBytes = net.bytes
        } else if t.rebuffers > 0 {
            rebuffers = t.rebuffers
        }
        if let adaptive = player.adaptive {
            variantSwitches = adaptive.switchCount
            estimatedThroughput = adaptive.estimate.map { $0.rounded() }
        }
        if let info = player.mediaInfo {
            duration = info.duration
            videoCodec = info.video.indices.contains(info.chosenVideo ?? 0) ? info.video[info.chosenVideo ?? 0].codec : nil
            audioCodec = player.activeAudioTrack.flatMap { info.audio.indices.contains($0) ? info.audio[$0].codec : nil }
            chapterStarts = info.chapters.isEmpty ? nil : info.chapters.map(\.start)
        }
    }
}
