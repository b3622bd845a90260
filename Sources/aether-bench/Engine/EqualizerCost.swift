import AetherLoopback
import AetherEngine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the equalizer costs (issue #63): CPU time per second of 48 kHz stereo audio through the
/// playback's audio decoder (`AudioDecoder`: the decoder, the filter chain with the equalizer
/// as the audio thread builds it, the resampler to the device's s16), in process, with the
/// equalizer off, with the ten-band graphic equalizer (a preset) and with a ten-filter profile.
///
/// The clip (``EqualizerClip``) is demuxed once into memory, so that a run is the audio
/// thread's work only: its packets through a fresh decoder, to the last sample. The settings
/// take turns run by run (one untimed warm-up each first) and the medians are reported:
/// process CPU time (every thread: libavfilter runs a filter's channels on a thread pool of
/// its own), the calling thread's CPU time, and wall time.
struct EqualizerCost {
    let repeats: Int
    let workDir: String

    /// A ten-filter profile in AutoEq's form, as a headphone correction reads: shelves at both
    /// ends, peaks both ways, some narrow.
    static let profileText = """
        Preamp: -5.8 dB
        Filter 1: ON LSC Fc 105 Hz Gain 5.0 dB Q 0.70
        Filter 2: ON PK Fc 62 Hz Gain -1.8 dB Q 1.10
        Filter 3: ON PK Fc 210 Hz Gain -2.9 dB Q 0.80
        Filter 4: ON PK Fc 900 Hz Gain 1.6 dB Q 1.40
        Filter 5: ON PK Fc 2300 Hz Gain -3.4 dB Q 2.20
        Filter 6: ON PK Fc 3600 Hz Gain 4.1 dB Q 3.50
        Filter 7: ON PK Fc 5400 Hz Gain -5.2 dB Q 5.00
        Filter 8: ON PK Fc 7700 Hz Gain 3.0 dB Q 4.00
        Filter 9: ON PK Fc 11000 Hz Gain -2.2 dB Q 2.00
        Filter 10: ON HSC Fc 10000 Hz Gain -1.5 dB Q 0.70
        """

    /// One setting measured: its name, the filters its chain runs, and the medians per second
    /// of audio.
    struct Row: Codable {
        var setting: String
        /// libavfilter filters of the equalizer (its preamp's volume and each band or filter);
        /// 0 when off (no graph at all).
        var filters: Int
        var processCPUMsPerSecond: Double
        var threadCPUMsPerSecond: Double
        var wallMsPerSecond: Double
        /// Process CPU ÷ the equalizer off's.
        var timesOff = 1.0
        /// Process CPU ms per second of audio, run by run.
        var runs: [Double]
    }

    struct Result: Codable {
        var file: String
        var codec: String
        var mediaSeconds: Double
        var rows: [Row]
    }

    enum Failure: Error, CustomStringConvertible {
        case clip(String), decode(String)
        var description: String {
            switch self {
            case .clip(let s): "equalizer bench: \(s)"
            case .decode(let s): "equalizer bench: decoding failed: \(s)"
            }
        }
    }

    func measure() throws -> Result {
        guard let file = EqualizerClip.ensure(directory: workDir) else {
            throw Failure.clip("cannot make the clip with ffmpeg in \(workDir)")
        }
        let profile = EqualizerProfile.parse(Array(Self.profileText.utf8), name: "bench-profile.txt")
        guard profile.refused.isEmpty, profile.curve.filters.count == 10 else {
            throw Failure.clip("the bench's profile did not read as ten filters: \(profile.refused)")
        }
        let settings: [(name: String, curve: EqualizerCurve)] = [
            ("off", .flat),
            ("graphic: loudness preset (10 bands)", EqualizerPreset.loudness.curve),
            ("profile: 10 filters (AutoEq form)", profile.curve),
        ]

        // The clip's audio packets, read once: the runs time the audio thread's work only.
        let format = try FormatContext(url: file, interrupt: InterruptToken(clock: .monotonic))
        let info = try MediaProbe.probe(format)
        guard let audio = info.audio.first, let stream = format.stream(audio.index) else {
            throw Failure.clip("\(file) has no audio stream")
        }
        var packets: [Packet] = []
        let reading = try Packet()
        while try format.read(into: reading) {
            if reading.streamIndex == audio.index { packets.append(try reading.take()) } else { reading.unref() }
        }

        /// One pass: every packet through a fresh decoder; the samples per channel put out and
        /// the seconds of each clock it took.
        func pass(_ curve: EqualizerCurve) throws -> (samples: Int, process: Double, thread: Double, wall: Double) {
            let decoder = try AudioDecoder(stream: stream, index: audio.index, output: AudioFormat(sampleRate: 48000, channels: 2),
                                           timeline: format.timeline, equalizer: curve)
            let (p0, t0, w0) = (CPUTime.process, CPUTime.thread, MonotonicTime.now())
            var samples = 0
            for packet in packets {
                for chunk in try decoder.decode(packet) { samples += chunk.samples.count / 2 }
            }
            for chunk in try decoder.decode(nil) { samples += chunk.samples.count / 2 }
            return (samples, CPUTime.process - p0, CPUTime.thread - t0,
                    MonotonicTime.now() - w0)
        }

        var samples = 0
        for setting in settings { samples = try pass(setting.curve).samples }   // warm-up: caches, libavfilter loaded
        guard samples > 0 else { throw Failure.decode("\(file): no samples") }
        let mediaSeconds = Double(samples) / 48000
        var runs = Array(repeating: [(process: Double, thread: Double, wall: Double)](), count: settings.count)
        for run in 0..<repeats {
            // Turns in another order each run, so that no setting always follows the same one.
            let order = run % 2 == 0 ? Array(settings.indices) : settings.indices.reversed()
            for index in order {
                let r = try pass(settings[index].curve)
                guard r.samples == samples else { throw Failure.decode("\(settings[index].name): \(r.samples) samples, \(samples) before") }
                runs[index].append((r.process, r.thread, r.wall))
            }
        }
        func perSecond(_ values: [Double]) -> Double { Stats.median(values) * 1000 / mediaSeconds }
        var rows = settings.indices.map { index in
            let curve = settings[index].curve
            return Row(setting: settings[index].name, filters: curve.isFlat ? 0 : curve.filters.count + 1,
                       processCPUMsPerSecond: perSecond(runs[index].map(\.process)),
                       threadCPUMsPerSecond: perSecond(runs[index].map(\.thread)),
                       wallMsPerSecond: perSecond(runs[index].map(\.wall)),
                       runs: runs[index].map { $0.process * 1000 / mediaSeconds })
        }
        let off = rows[0].processCPUMsPerSecond
        for index in rows.indices { rows[index].timesOff = off > 0 ? rows[index].processCPUMsPerSecond / off : 0 }
        return Result(file: file, codec: audio.codec, mediaSeconds: mediaSeconds, rows: rows)
    }
}

/// The equalizer bench's clip: 60 s of pink noise, 48 kHz stereo (a noise of its own in each
/// channel), peak about −12 dBFS, FLAC, encoded by the ffmpeg CLI at bench time and cached in
/// the work directory.
enum EqualizerClip {
    static let seconds = 60

    static func ensure(directory: String) -> String? {
        let path = "\(directory)/pink-48k-stereo-\(seconds)s.flac"
        if FileManager.default.fileExists(atPath: path) { return path }
        let partial = path + ".part.flac"
        let noise = "anoisesrc=color=pink:sample_rate=48000:amplitude=0.25:duration=\(seconds)"
        let argv = ["ffmpeg", "-nostdin", "-v", "error",
                    "-filter_complex", "\(noise):seed=1[l];\(noise):seed=2[r];[l][r]join=inputs=2:channel_layout=stereo",
                    "-c:a", "flac", "-sample_fmt", "s16", "-y", partial]
        guard Spawn.run(argv).status == 0, (try? FileManager.default.moveItem(atPath: partial, toPath: path)) != nil else {
            try? FileManager.default.removeItem(atPath: partial)
            return nil
        }
        return path
    }
}
