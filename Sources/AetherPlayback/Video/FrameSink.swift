import AetherBase
import AetherMedia
import AetherSubtitles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Which hand-over a frame was: the seek generation it belongs to and its place in the
/// session's sequence of hand-overs. A host quotes it back in its ``FrameReport``.
public struct FrameID: Sendable, Hashable {
    /// Seek generation (serial) the frame was decoded under.
    let serial: Int
    /// 1, 2, … per session, in hand-over order (a frame handed over again, with new cues while
    /// paused, gets a new number).
    public let sequence: Int
    /// The frame's presentation time (media seconds).
    public let pts: Double
    /// Handed over by clock pacing: its A/V gap and paint latency count.
    let paced: Bool
}

/// A due frame as the presenter hands it to the host: the picture, the subtitle cues showing
/// with it, and when it is due on screen.
/// The subtitles due with a frame: its moment on the cues' timeline, the cues showing, and (when
/// a typeset cue shows) every cue libass draws then.
struct SubtitleMoment: Equatable {
    let time: Double
    let shown: [SubtitleCue]
    let typeset: [SubtitleCue]
}

public struct PresentedFrame: Sendable {
    public let frame: VideoFrame
    /// Cues of the selected subtitle track showing at the frame's pts, the subtitle delay
    /// applied (``Player/setSubtitleDelay(_:)``): text and bitmap, in start order.
    public let cues: [SubtitleCue]
    /// The frame's moment on the cues' timeline: its pts with the subtitle delay taken off.
    public let cueTime: Double
    /// When a typeset (ASS) cue shows with the frame: every cue of the track on screen at
    /// ``cueTime``, at most ``typesetLimit`` (libass draws them all; signs come hundreds at a
    /// time); else empty. The render thread gets them with the frame, never from the engine.
    public let typesetCues: [SubtitleCue]
    public let id: FrameID
    /// Monotonic seconds (``MonotonicClock``) at hand-over.
    public let handedAt: Double
    /// Monotonic seconds at which the clock reaches the frame's pts, at the rate of the
    /// moment; nil for frames shown outside clock pacing (the first frame of a seek, a step).
    public let dueAt: Double?
    /// The playback rate at hand-over (frames come `frame.duration / rate` apart).
    public let rate: Double

    /// The bitmap cues (PGS, DVB, DVD) to burn into the picture.
    public var bitmapCues: [SubtitleBitmap] {
        cues.compactMap {
            if case .bitmap(let b) = $0.content { return b }
            return nil
        }
    }

    /// Most cues handed to libass for one moment.
    public static let typesetLimit = 4096

    /// The same frame with other cues (another subtitle track chosen, the delay changed).
    func with(cues: SubtitleMoment, sequence: Int, handedAt: Double) -> PresentedFrame {
        var f = frame
        f.paced = false
        return PresentedFrame(frame: f, cues: cues.shown, cueTime: cues.time, typesetCues: cues.typeset,
                              id: FrameID(serial: id.serial, sequence: sequence, pts: id.pts, paced: false),
                              handedAt: handedAt, dueAt: nil, rate: rate)
    }
}

/// Where the presenter hands frames: the host's side of the frame path.
///
/// Contract:
/// - ``present(_:)`` is called on the engine's present thread, one frame at a time, in order.
///   It must never block (no terminal writes, no waiting on the host's render thread, no lock
///   held for longer than a hand-over): the clock pacing of every later frame waits for it.
/// - A sink that paints on a thread of its own says so with ``reportsDisplay`` and posts one
///   ``FrameReport`` per handed frame with ``Player/report(_:)``: `displayed` when it reached
///   the screen (or there was nothing to draw), `superseded` when a newer frame replaced it
///   before it was painted. That report is the only thing the host sends back on the frame
///   path; the engine derives from it the A/V gap, the sound start of a seek and the
///   presentation lead.
/// - A sink that does not report (``reportsDisplay`` false) is taken to have shown the frame
///   when ``present(_:)`` returns.
public protocol FrameSink: AnyObject, Sendable {
    /// True when the sink paints on its own thread and reports each frame (see the contract).
    var reportsDisplay: Bool { get }
    /// Engine present thread: take `frame`; never block.
    func present(_ frame: PresentedFrame)
}

/// The host's feedback on one handed frame: plain data, posted with ``Player/report(_:)``.
public struct FrameReport: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The frame is on screen. `latency`: seconds from hand-over
        /// (``PresentedFrame/handedAt``) until the terminal took its last byte; nil when
        /// nothing was painted for it (no room, nothing changed), so it says nothing about how
        /// long painting takes.
        case displayed(latency: Double?)
        /// A newer frame replaced it before it was painted (the output is too slow).
        case superseded
    }

    public let frame: FrameID
    public let outcome: Outcome

    public init(frame: FrameID, outcome: Outcome) {
        self.frame = frame
        self.outcome = outcome
    }
}

/// ``Player/setFrameHandler(_:)``'s sink: a closure run on the present thread, shown when it
/// returns.
final class HandlerSink: FrameSink {
    let handler: @Sendable (VideoFrame) -> Void
    init(_ handler: @escaping @Sendable (VideoFrame) -> Void) { self.handler = handler }
    var reportsDisplay: Bool { false }
    func present(_ frame: PresentedFrame) { handler(frame.frame) }
}

/// The engine's side of the host's reports: the newest serial shown, and the presentation lead
/// (the median of the recent paint latencies of paced frames). Written by whichever thread
/// posts a report, read by the present and audio threads; all behind one lock.
final class PresentationFeedback: Sendable {
    private struct Reports {
        var latencies = LatencyWindow()
        var lead = 0.0
        var displayedSerial = -1
    }
    private let reports = Guarded(Reports())

    /// Seconds before its due time a paced frame is handed over: the median of the last
    /// ``LatencyWindow/capacity`` paint latencies once four are known, else 0.
    var presentationLead: Double { reports.withLock { $0.lead } }

    /// Records a displayed frame; returns true when it is the first of a newer serial.
    func displayed(serial: Int, latency: Double?) -> Bool {
        reports.withLock { r in
            if let latency, latency.isFinite, latency >= 0 {
                r.latencies.add(latency)
                if r.latencies.count >= 4 { r.lead = r.latencies.median }
            }
            guard serial > r.displayedSerial else { return false }
            r.displayedSerial = serial
            return true
        }
    }
}

/// The last few paint latencies, for a running median.
struct LatencyWindow {
    private var values: [Double] = []
    private var next = 0
    static let capacity = 16
    var count: Int { values.count }

    mutating func add(_ value: Double) {
        if values.count < Self.capacity { values.append(value) } else { values[next] = value }
        next = (next + 1) % Self.capacity
    }

    var median: Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
