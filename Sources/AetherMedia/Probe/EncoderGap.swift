import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The encoder delay and padding a player must trim for a track to join the next without a gap,
/// where libavformat and libavcodec leave them: they trim LAME/Xing MP3s, Opus pre-skip and end
/// granule, and an MP4's priming (its edit list's start or `iTunSMPB`), but not an MP4's
/// last-frame padding (past the edit list's end), nor an MP3 whose delay is only in an iTunes
/// `iTunSMPB` comment (no LAME header). The one home of that knowledge: ``trim(_:stream:)``.
public enum EncoderGap {
    /// An `iTunSMPB` value: ` 00000000 00000451 000003BF 000000000003A980 …` (hex fields:
    /// reserved, priming, padding, sound samples). Priming counts every sample to drop from
    /// the decoder's output (the encoder's delay and the decoder's, as for AAC).
    public struct ITunes: Sendable, Equatable {
        public var priming: Int
        public var padding: Int
        public var samples: Int

        public init(priming: Int, padding: Int, samples: Int) {
            self.priming = priming
            self.padding = padding
            self.samples = samples
        }

        /// Parses the value (outside input: at most 256 characters read, the priming below
        /// 16384 samples and the length below 2⁴⁰, as libavformat accepts them); nil otherwise.
        public static func parse(_ text: String) -> ITunes? {
            let fields = text.prefix(256).split(separator: " ")
            guard fields.count >= 4, fields[1].count <= 8, fields[2].count <= 8, fields[3].count <= 16,
                  let priming = Int(fields[1], radix: 16), let padding = Int(fields[2], radix: 16),
                  let samples = Int(fields[3], radix: 16),
                  (0..<16384).contains(priming), padding >= 0, (1..<(1 << 40)).contains(samples) else { return nil }
            return ITunes(priming: priming, padding: padding, samples: samples)
        }
    }

    /// Media seconds of audio stream `index` outside which its samples are the encoder's (nil:
    /// nothing to trim there beyond what the decoders do):
    /// - MP4/QuickTime: the end the edit list gives (its start plus the stream's duration, which
    ///   libavformat takes from the edit list);
    /// - MP3 with `iTunSMPB` and no delay libavformat already skips (its stream starts at 0):
    ///   the priming at the start, the sound's samples after it.
    public static func trim(_ format: FormatContext, stream index: Int) -> (start: Double?, end: Double?) {
        guard let demuxer = format.pointer.pointee.iformat?.pointee.name, let stream = format.stream(index),
              let par = stream.pointee.codecpar else { return (nil, nil) }
        let name = String(cString: demuxer)
        let none = aether_AV_NOPTS_VALUE()
        if name.hasPrefix("mov,") {
            guard stream.pointee.duration > 0, stream.pointee.duration != none else { return (nil, nil) }
            let start = stream.pointee.start_time == none ? 0 : stream.pointee.start_time
            return (nil, format.timeline.seconds(start &+ stream.pointee.duration, stream.pointee.time_base))
        }
        if name == "mp3", stream.pointee.start_time == 0 || stream.pointee.start_time == none, par.pointee.sample_rate > 0,
           let value = MediaProbe.rawTag([format.pointer.pointee.metadata, stream.pointee.metadata], "iTunSMPB"),
           let gap = ITunes.parse(value) {
            let rate = Double(par.pointee.sample_rate)
            return (Double(gap.priming) / rate, Double(gap.priming + gap.samples) / rate)
        }
        return (nil, nil)
    }
}
