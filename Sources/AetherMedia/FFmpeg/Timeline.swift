import CFFmpeg

/// Media time: seconds since the source's first timestamp. Broadcast captures start hours in
/// (an MPEG-TS with `start_time` 3883 s); every position the engine hands out or accepts — the
/// clock, frame and cue times, seeks, `--start`/`--length`, chapters — is measured from the
/// source's `start_time`, so such a file runs from 0:00 like any other.
///
/// The conversions take hostile values (AV_NOPTS_VALUE, zero or negative time bases,
/// timestamps near Int64's limits, 1e18-second chapters) and never trap.
public struct Timeline: Sendable, Equatable {
    /// Source seconds (container timestamps × time base) of media time 0.
    public let origin: Double

    public init(origin: Double) { self.origin = origin.isFinite ? origin : 0 }

    /// The timeline of an opened demuxer: `start_time` when the container knows it.
    init(_ ctx: UnsafePointer<AVFormatContext>) {
        let start = ctx.pointee.start_time
        self.init(origin: start == aether_AV_NOPTS_VALUE() ? 0 : Double(start) / Double(AV_TIME_BASE))
    }

    /// Media seconds of a container timestamp; nil for AV_NOPTS_VALUE or an unusable time base.
    public func seconds(_ timestamp: Int64?, _ timeBase: AVRational) -> Double? {
        guard let source = Timeline.sourceSeconds(timestamp, timeBase) else { return nil }
        let t = source - origin
        return t.isFinite ? t : nil
    }

    /// Source seconds of a container timestamp (no origin applied).
    public static func sourceSeconds(_ timestamp: Int64?, _ timeBase: AVRational) -> Double? {
        guard let timestamp, timestamp != aether_AV_NOPTS_VALUE(), timeBase.num > 0, timeBase.den > 0 else { return nil }
        let s = Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
        return s.isFinite ? s : nil
    }

    /// A media time as a source timestamp in AV_TIME_BASE units (for `avformat_seek_file`), clamped.
    public func sourceTimestamp(_ seconds: Double) -> Int64 {
        Int64(saturating: ((seconds + origin) * Double(AV_TIME_BASE)).rounded())
    }
}
