import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The engine's 1 Hz view of itself (AetherEngine's LiveTelemetry plus the `[SWDiag]` fields).
public struct TelemetrySnapshot: Codable, Sendable, Equatable {
    public var position: Double = 0
    public var state: String = "idle"
    /// Bits per second of the media played over the last interval (the packets the decoders
    /// took: the stream's own bit rate times the speed). Reading ahead does not count: a local
    /// file is read in bursts, then not at all.
    public var instantBitrate: Double = 0
    /// The stream's own bit rate since playback started: the audio and video packets read, over
    /// the media time they cover (``MediaSpan``); the same from the first line (reading ahead
    /// adds bytes and the time they cover alike), whatever the speed.
    public var averageBitrate: Double = 0
    /// Bits per second the demuxer read over the last interval (the download rate of a
    /// network source while its cache fills).
    public var readBitrate: Double = 0
    /// Seconds of demuxed media ahead of the clock, and decoded frames waiting.
    public var bufferedSeconds: Double = 0
    public var bufferedFrames: Int = 0
    public var framesDecoded: Int = 0
    public var framesPresented: Int = 0
    public var framesDroppedLate: Int = 0
    public var framesDroppedEarly: Int = 0
    /// Frames the host replaced with a newer one before it could show them (a terminal slower
    /// than the video): reported by hosts that paint on their own thread.
    public var framesSuperseded: Int = 0
    /// Frames not converted because the host paints only every n-th (``Player/setFrameDivisor(_:)``).
    public var framesSkipped: Int = 0
    /// Packets the decoders rejected as damaged (skipped, playback went on), and failed reads
    /// the demuxer resynced past.
    public var decodeErrors: Int = 0
    public var readErrors: Int = 0
    public var framesDropped: Int { framesDroppedLate + framesDroppedEarly }
    /// Frames presented per wall second over the last interval.
    public var observedFPS: Double = 0
    /// Presented pts minus clock when the frame was out, in milliseconds (last, mean, p95 over
    /// the last `Telemetry.gapWindow` frames).
    public var avGapLastMs: Double = 0
    public var avGapMeanMs: Double = 0
    public var avGapP95Ms: Double = 0
    /// Per-stage cost over the last interval (the bytes-to-pixels pipeline, stage by stage):
    /// reading a packet (I/O and demuxing), decoding a frame, filtering it (deinterlace, tone
    /// map), scaling it to the host's size, and the host's presenting of it. Hosts fill in
    /// `renderMsPerFrame` (encoding for the terminal) and `writeMsPerFrame` (writing the bytes),
    /// which together make up the present stage.
    public var readMsPerPacket: Double = 0
    public var decodeMsPerFrame: Double = 0
    public var filterMsPerFrame: Double = 0
    public var scaleMsPerFrame: Double = 0
    public var presentMsPerFrame: Double = 0
    public var renderMsPerFrame: Double = 0
    public var writeMsPerFrame: Double = 0
    public var clockSource: String = "system"
    public var audioDevice: String = ""
    public var audioFormat: String = ""
    public var videoDecoder: String = ""
    public var audioDecoder: String = ""
    public var rate: Double = 1
    public var volume: Double = 100
    public var muted = false
    /// The loudness gain applied (`track -6.00 dB`, `album …`, `fallback …`); nil when off.
    public var replayGain: String?
    public var deinterlacing = false
    /// Frames the decoder leaves without the loop filter (`bidir`, …), nil when none.
    public var loopFilterSkip: String?
    public var toneMapping = false
    public var audioXruns = 0
    /// Network sources: playback waits for the cache (`buffering…`), times it had to, how far
    /// the demuxer has read (media seconds), the network's phase (`flowing`, `reconnecting 2`,
    /// `failed`), body bytes received, reconnects and the recent rate (bytes/s).
    public var buffering = false
    public var rebuffers = 0
    public var cachedUntil: Double?
    public var networkPhase: String?
    public var networkBytes: Int64?
    public var networkRetries: Int?
    /// The source's throughput estimate in bytes per second (``NetworkStatus/throughput``: with
    /// bit-rate switching, ``estimatedThroughput`` / 8).
    public var networkBytesPerSecond: Double?
    /// Adaptive streams: the playing variant's peak bit rate (`BANDWIDTH`, b/s) and its 1-based
    /// number in the master; with bit-rate switching, the throughput estimate (b/s) and how many
    /// switches there were.
    public var hlsBitrate: Int?
    public var variantNumber: Int?
    public var estimatedThroughput: Double?
    public var variantSwitches: Int?
    /// The pipeline's queues as they were at the sample (video and audio packets, decoded
    /// frames): the inspector's live tab draws them.
    public var queues: [QueueFill] = []
    /// The master clock's media time at the sample.
    public var clockTime: Double = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case position, state, instantBitrate, averageBitrate, readBitrate, bufferedSeconds, bufferedFrames
        case framesDecoded, framesPresented, framesDroppedLate, framesDroppedEarly, framesSuperseded, decodeErrors, readErrors, observedFPS
        case avGapLastMs, avGapMeanMs, avGapP95Ms, readMsPerPacket, decodeMsPerFrame, filterMsPerFrame
        case scaleMsPerFrame, presentMsPerFrame, renderMsPerFrame, writeMsPerFrame, clockSource, audioDevice
        case audioFormat, videoDecoder, audioDecoder, rate, volume, muted, deinterlacing, loopFilterSkip, toneMapping, audioXruns
        case hlsBitrate, variantNumber, estimatedThroughput, variantSwitches, queues, clockTime
    }
}

/// One bounded queue's fill: items and bytes against its bounds.
public struct QueueFill: Codable, Sendable, Equatable {
    public var name: String
    public var items: Int
    public var capacity: Int
    public var bytes: Int
    /// Nil when the queue is bounded by count alone.
    public var byteCapacity: Int?

    public init(name: String, items: Int, capacity: Int, bytes: Int, byteCapacity: Int?) {
        self.name = name
        self.items = items
        self.capacity = capacity
        self.bytes = bytes
        self.byteCapacity = byteCapacity
    }

    /// The fuller of the two bounds, 0…1.
    public var level: Double {
        let byItems = capacity > 0 ? Double(items) / Double(capacity) : 0
        let byBytes = (byteCapacity ?? 0) > 0 ? Double(bytes) / Double(byteCapacity!) : 0
        return min(1, max(byItems, byBytes))
    }
}

/// Counters the engine threads bump; `sample()` turns them into a snapshot with per-interval rates.
final class Telemetry: Sendable {
    static let gapWindow = 240

    struct Counters {
        var bytesRead = 0
        var framesDecoded = 0
        var framesPresented = 0
        var droppedLate = 0
        var droppedEarly = 0
        var superseded = 0
        var skipped = 0
        var decodeErrors = 0
        var readErrors = 0
        var decodeSeconds = 0.0
        /// The last `gapWindow` presented frames' gaps (seconds), a ring.
        var recentGaps: [Double] = []
        var recentNext = 0
        /// Every presented frame's gap, in fixed memory.
        var allGaps = GapHistogram()
        var lastSampleHost = 0.0
        var lastSampleBytes = 0
        var lastSamplePresented = 0
        var lastSampleDecoded = 0
        var lastSampleDecodeSeconds = 0.0
        var decodeMs = 0.0
        var instantBitrate = 0.0
        var readBitrate = 0.0
        var bytesPlayed = 0
        var lastSamplePlayed = 0
        /// Audio and video bytes read, and the media time they cover.
        var bytesSpanned = 0
        var span = MediaSpan()
        var observedFPS = 0.0
        var lastGap = 0.0
        var stageSeconds = [0.0, 0.0, 0.0, 0.0]
        var stageCounts = [0, 0, 0, 0]
        var lastStageSeconds = [0.0, 0.0, 0.0, 0.0]
        var lastStageCounts = [0, 0, 0, 0]
        var stageMs = [0.0, 0.0, 0.0, 0.0]

        mutating func record(gap: Double) {
            guard gap.isFinite else { return }
            allGaps.add(gap)
            if recentGaps.count < Telemetry.gapWindow {
                recentGaps.append(gap)
            } else {
                recentGaps[recentNext] = gap
            }
            recentNext = (recentNext + 1) % Telemetry.gapWindow
            lastGap = gap
        }
    }

    let counters = Guarded(Counters())

    /// What the rates' intervals are measured on: the session's clock.
    private let time: TimeSource

    init(time: TimeSource) {
        self.time = time
        let now = time.seconds
        counters.withLock { $0.lastSampleHost = now }
    }

    func addBytes(_ n: Int) { counters.withLock { $0.bytesRead += n } }
    func addPlayedBytes(_ n: Int) { counters.withLock { $0.bytesPlayed += n } }
    /// An audio or video packet of `n` bytes read, at `seconds` of media, lasting `duration`.
    func addSpanned(_ n: Int, at seconds: Double, duration: Double) {
        counters.withLock { c in
            c.bytesSpanned += n
            c.span.add(seconds, duration: duration)
        }
    }
    func decoded(frames: Int, seconds: Double) {
        counters.withLock { $0.framesDecoded += frames; $0.decodeSeconds += seconds }
    }

    /// The pipeline stages timed apart from decoding.
    enum Stage: Int { case read, filter, scale, present }

    func add(_ stage: Stage, seconds: Double, count: Int = 1) {
        counters.withLock { c in
            c.stageSeconds[stage.rawValue] += seconds
            c.stageCounts[stage.rawValue] += count
        }
    }
    func droppedEarly(_ frames: Int = 1) { counters.withLock { $0.droppedEarly += frames } }
    func decodeError() { counters.withLock { $0.decodeErrors += 1 } }
    func readError() { counters.withLock { $0.readErrors += 1 } }
    func droppedLate() { counters.withLock { $0.droppedLate += 1 } }
    func superseded() { counters.withLock { $0.superseded += 1 } }
    func skipped() { counters.withLock { $0.skipped += 1 } }
    /// A frame reached the host; `gap` is nil when it was shown outside clock pacing
    /// (the first frame after a seek, a frame step) or when the host measures the gap itself
    /// (``displayed(gap:)``).
    func presented(gap: Double?) {
        counters.withLock { c in
            c.framesPresented += 1
            if let gap { c.record(gap: gap) }
        }
    }

    /// A host that paints on its own thread: a handed-over frame reached the screen `gap`
    /// seconds before (negative: after) the clock.
    func displayed(gap: Double) {
        counters.withLock { $0.record(gap: gap) }
    }

    /// Fills the counter-derived fields of `snapshot`; advances the interval when `advance`.
    func fill(_ snapshot: inout TelemetrySnapshot, advance: Bool) {
        let now = time.seconds
        counters.withLock { c in
            let dt = now - c.lastSampleHost
            if advance, dt >= 0.2 {
                c.instantBitrate = Double(c.bytesPlayed - c.lastSamplePlayed) * 8 / dt
                c.readBitrate = Double(c.bytesRead - c.lastSampleBytes) * 8 / dt
                c.lastSamplePlayed = c.bytesPlayed
                c.observedFPS = Double(c.framesPresented - c.lastSamplePresented) / dt
                let frames = c.framesDecoded - c.lastSampleDecoded
                c.decodeMs = frames > 0 ? (c.decodeSeconds - c.lastSampleDecodeSeconds) * 1000 / Double(frames) : c.decodeMs
                c.lastSampleHost = now
                c.lastSampleBytes = c.bytesRead
                c.lastSamplePresented = c.framesPresented
                c.lastSampleDecoded = c.framesDecoded
                c.lastSampleDecodeSeconds = c.decodeSeconds
                // Filter and scale run per decoded frame, inside the decode thread's busy time.
                for i in 0..<4 {
                    let n = c.stageCounts[i] - c.lastStageCounts[i]
                    if n > 0 { c.stageMs[i] = (c.stageSeconds[i] - c.lastStageSeconds[i]) * 1000 / Double(n) }
                }
                if frames > 0 {
                    let f = Stage.filter.rawValue, s = Stage.scale.rawValue
                    let other = (c.stageSeconds[f] - c.lastStageSeconds[f]) + (c.stageSeconds[s] - c.lastStageSeconds[s])
                    c.decodeMs = max(0, c.decodeMs - other * 1000 / Double(frames))
                }
                c.lastStageSeconds = c.stageSeconds
                c.lastStageCounts = c.stageCounts
            }
            snapshot.instantBitrate = c.instantBitrate
            snapshot.observedFPS = c.observedFPS
            snapshot.decodeMsPerFrame = c.decodeMs
            snapshot.readMsPerPacket = c.stageMs[Stage.read.rawValue]
            snapshot.filterMsPerFrame = c.stageMs[Stage.filter.rawValue]
            snapshot.scaleMsPerFrame = c.stageMs[Stage.scale.rawValue]
            snapshot.presentMsPerFrame = c.stageMs[Stage.present.rawValue]
            let spanned = c.span.seconds
            snapshot.averageBitrate = spanned >= MediaSpan.shortest ? Double(c.bytesSpanned) * 8 / spanned : 0
            snapshot.readBitrate = c.readBitrate
            snapshot.framesDecoded = c.framesDecoded
            snapshot.framesPresented = c.framesPresented
            snapshot.framesDroppedLate = c.droppedLate
            snapshot.framesDroppedEarly = c.droppedEarly
            snapshot.framesSuperseded = c.superseded
            snapshot.framesSkipped = c.skipped
            snapshot.decodeErrors = c.decodeErrors
            snapshot.readErrors = c.readErrors
            snapshot.avGapLastMs = c.lastGap * 1000
            let recent = GapStatistics(c.recentGaps)
            snapshot.avGapMeanMs = recent.mean * 1000
            snapshot.avGapP95Ms = recent.p95 * 1000
        }
    }

    /// Statistics over every presented frame so far.
    var allGaps: GapStatistics { counters.withLock { $0.allGaps.statistics } }
}

/// Statistics of any number of A/V gaps in fixed memory: an exact count, mean and maximum, and
/// the 95th percentile of magnitudes from a histogram of `resolution`-wide bins up to `range`
/// (larger gaps share the last bin; the maximum stays exact).
public struct GapHistogram: Sendable, Equatable {
    public static let resolution = 0.000_25
    public static let range = 2.0
    private var bins = [UInt32](repeating: 0, count: Int(range / resolution) + 1)
    public private(set) var count = 0
    private var sum = 0.0
    private var maxMagnitude = 0.0

    public init() {}

    public mutating func add(_ gap: Double) {
        guard gap.isFinite else { return }
        let m = abs(gap)
        bins[Int(min(Double(bins.count - 1), m / GapHistogram.resolution))] &+= 1
        count += 1
        sum += gap
        maxMagnitude = max(maxMagnitude, m)
    }

    public var statistics: GapStatistics {
        guard count > 0 else { return GapStatistics([]) }
        let rank = Int((Double(count) * 0.95).rounded(.up))
        var seen = 0
        var p95 = maxMagnitude
        for (i, n) in bins.enumerated() {
            seen += Int(n)
            if seen >= rank {
                p95 = min(maxMagnitude, Double(i + 1) * GapHistogram.resolution)
                break
            }
        }
        return GapStatistics(count: count, mean: sum / Double(count), p95: p95, max: maxMagnitude)
    }
}

/// Mean, 95th percentile (of absolute values) and maximum of A/V gaps.
public struct GapStatistics: Sendable, Codable, Equatable {
    public let count: Int
    public let mean: Double
    public let p95: Double
    public let max: Double

    public init(count: Int, mean: Double, p95: Double, max: Double) {
        self.count = count
        self.mean = mean
        self.p95 = p95
        self.max = max
    }

    public init(_ gaps: [Double]) {
        count = gaps.count
        guard !gaps.isEmpty else { mean = 0; p95 = 0; max = 0; return }
        mean = gaps.reduce(0, +) / Double(gaps.count)
        let magnitudes = gaps.map(abs).sorted()
        p95 = magnitudes[Swift.min(magnitudes.count - 1, Int((Double(magnitudes.count) * 0.95).rounded(.up)) - 1)]
        max = magnitudes.last ?? 0
    }
}

/// The media time a stream of packets covers, in stretches: a packet more than a second before
/// the stretch or more than two after it (a seek) begins a new one; each stretch counts from
/// its earliest packet to its latest packet's end.
struct MediaSpan: Sendable, Equatable {
    private var closed = 0.0
    private var start: Double?
    private var end = 0.0

    /// A bit rate over less media than this is not given (the first packets say little).
    static let shortest = 0.2

    mutating func add(_ seconds: Double, duration: Double) {
        guard seconds.isFinite, duration.isFinite else { return }
        let length = min(max(0, duration), 60)
        if let s = start, seconds >= s - 1, seconds <= end + 2 {
            start = min(s, seconds)
            end = max(end, seconds + length)
            return
        }
        if let s = start { closed += end - s }
        start = seconds
        end = seconds + length
    }

    /// Seconds covered by every stretch.
    var seconds: Double { closed + (start.map { end - $0 } ?? 0) }
}
