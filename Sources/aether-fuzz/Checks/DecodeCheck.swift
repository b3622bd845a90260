import AetherBase
import AetherMedia
import AetherSubtitles
import CFFmpeg
import Foundation

/// Runs bytes through the playback path's own pieces, bounded, for fuzzing and robustness
/// checks: the demuxer (from memory), the probe, the video decoder with its filters and scaler,
/// the audio decoder with its resampler, and the subtitle decoders with the bitmap walk.
enum DecodeCheck {
    struct Outcome: Sendable {
        var packets = 0
        var videoFrames = 0
        var audioChunks = 0
        var cues = 0
        var errors = 0
    }

    /// Demuxes `bytes` from memory, probes them and decodes up to `maxPackets` packets of every
    /// stream. Returns nil when the bytes do not open as media.
    static func media(_ bytes: [UInt8], maxPackets: Int = 200) -> Outcome? {
        guard let format = try? FormatContext(bytes: bytes, timeout: 5, clock: ManualTimeSource().source),
              let info = try? MediaProbe.probe(format) else { return nil }
        // Loudness tags from the file: whatever they say, every mode gives a finite gain within ±64 dB.
        for mode in ReplayGainMode.allCases {
            for clip in [false, true] {
                let applied = ReplayGainSettings(mode: mode, preamp: 15, clip: clip, fallback: -200).applied(to: info.replayGain)
                precondition(applied.db.isFinite && abs(applied.db) <= 128 && applied.factor.isFinite, "\(info.replayGain)")
            }
        }
        // Encoder delay and padding from the file's tags and edit list: finite, in order.
        for i in 0..<format.streamCount {
            let (start, end) = EncoderGap.trim(format, stream: i)
            precondition((start ?? 0).isFinite && (end ?? 0).isFinite && (start ?? 0) <= (end ?? .infinity), "\(String(describing: start)) \(String(describing: end))")
            if let text = MediaProbe.rawTag([format.pointer.pointee.metadata], "iTunSMPB") { _ = EncoderGap.ITunes.parse(text) }
        }
        var out = Outcome()
        var video: [Int: VideoDecoder] = [:]
        var audio: [Int: AudioDecoder] = [:]
        var subtitles: [Int: CodecContext] = [:]
        for i in 0..<format.streamCount {
            guard let stream = format.stream(i), let par = stream.pointee.codecpar else { continue }
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO:
                video[i] = try? VideoDecoder(stream: stream, index: i, threads: 1, timeline: format.timeline, time: ManualTimeSource().source)
            case AVMEDIA_TYPE_AUDIO:
                audio[i] = try? AudioDecoder(stream: stream, index: i, output: AudioFormat(sampleRate: 48000, channels: 2),
                                             timeline: format.timeline)
            case AVMEDIA_TYPE_SUBTITLE:
                subtitles[i] = try? CodecContext(parameters: par, timeBase: stream.pointee.time_base, threads: 1)
            default: break
            }
        }
        guard let packet = try? Packet() else { return out }
        let size = PixelSize(width: 64, height: 36)
        let pixels = PixelBuffer(count: size.width * size.height * 3)
        let width = info.primaryVideo?.width ?? 0, height = info.primaryVideo?.height ?? 0
        while out.packets < maxPackets {
            let got: Bool
            do {
                got = try format.read(into: packet)
            } catch {
                out.errors += 1
                if format.atEndOfInput { break }
                continue
            }
            guard got else { break }
            defer { packet.unref() }
            out.packets += 1
            let index = packet.streamIndex
            if let d = video[index] {
                do {
                    try d.decode(packet) { frame, _ in
                        try d.render(frame, size: size, into: pixels)
                        out.videoFrames += 1
                    }
                } catch { out.errors += 1 }
            } else if let d = audio[index] {
                do { out.audioChunks += try d.decode(packet).count } catch { out.errors += 1 }
            } else if let d = subtitles[index], let stream = format.stream(index) {
                out.cues += SubtitleDecoder.decode(packet, decoder: d, stream: stream, timeline: format.timeline,
                                                   width: width, height: height).count
            }
        }
        for d in video.values { try? d.decode(nil) { frame, _ in try d.render(frame, size: size, into: pixels) } }
        return out
    }

    /// Subtitle codecs `subtitle(_:)` picks from with its first byte.
    static let subtitleCodecs = ["subrip", "ass", "webvtt", "mov_text", "hdmv_pgs_subtitle",
                                        "dvd_subtitle", "dvb_subtitle", "text", "ssa", "microdvd"]

    /// Decodes one subtitle packet: the first byte picks the codec (`subtitleCodecs`), the rest
    /// is the payload. Returns the cues produced.
    static func subtitle(_ bytes: [UInt8]) -> [SubtitleCue] {
        guard let first = bytes.first else { return [] }
        let name = subtitleCodecs[Int(first) % subtitleCodecs.count]
        guard let descriptor = avcodec_descriptor_get_by_name(name), let par = avcodec_parameters_alloc() else { return [] }
        var params: UnsafeMutablePointer<AVCodecParameters>? = par
        defer { avcodec_parameters_free(&params) }
        par.pointee.codec_type = AVMEDIA_TYPE_SUBTITLE
        par.pointee.codec_id = descriptor.pointee.id
        par.pointee.width = 720
        par.pointee.height = 576
        let tb = AVRational(num: 1, den: 1000)
        guard let decoder = try? CodecContext(parameters: par, timeBase: tb, threads: 1),
              let packet = try? Packet(bytes: Array(bytes.dropFirst())) else { return [] }
        packet.pointer.pointee.pts = 1000
        packet.pointer.pointee.duration = 2000
        return SubtitleDecoder.decode(packet, decoder: decoder, timeBase: tb, timeline: Timeline(origin: 0),
                                      width: 720, height: 576)
    }
}
