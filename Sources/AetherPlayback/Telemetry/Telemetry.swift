import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

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
            snapshot.bitrates.instant = c.instantBitrate
            snapshot.observedFPS = c.observedFPS
            snapshot.stages.decodeMsPerFrame = c.decodeMs
            snapshot.stages.readMsPerPacket = c.stageMs[Stage.read.rawValue]
            snapshot.stages.filterMsPerFrame = c.stageMs[Stage.filter.rawValue]
            snapshot.stages.scaleMsPerFrame = c.stageMs[Stage.scale.rawValue]
            snapshot.stages.presentMsPerFrame = c.stageMs[Stage.present.rawValue]
            let spanned = c.span.seconds
            snapshot.bitrates.average = spanned >= MediaSpan.shortest ? Double(c.bytesSpanned) * 8 / spanned : 0
            snapshot.bitrates.read = c.readBitrate
            snapshot.frames.decoded = c.framesDecoded
            snapshot.frames.presented = c.framesPresented
            snapshot.frames.droppedLate = c.droppedLate
            snapshot.frames.droppedEarly = c.droppedEarly
            snapshot.frames.superseded = c.superseded
            snapshot.frames.skipped = c.skipped
            snapshot.decodeErrors = c.decodeErrors
            snapshot.readErrors = c.readErrors
            snapshot.sync.gapLastMs = c.lastGap * 1000
            let recent = GapStatistics(c.recentGaps)
            snapshot.sync.gapMeanMs = recent.mean * 1000
            snapshot.sync.gapP95Ms = recent.p95 * 1000
        }
    }

    /// Statistics over every presented frame so far.
    var allGaps: GapStatistics { counters.withLock { $0.allGaps.statistics } }
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
