import CFFmpeg

/// A run of device-ready samples and the media time it starts at.
package struct AudioChunk {
    /// Media seconds of the first sample.
    package var pts: Double
    /// Interleaved s16 at the device format.
    package var samples: [Int16]
    /// Media seconds this chunk covers (output duration × speed).
    package var mediaDuration: Double
}

/// Decodes one audio stream and converts it for the sink: its filters (``AudioFilterChain``:
/// `--af`, then `atempo` for the speed with pitch kept), then libswresample to the device's rate,
/// channels (downmix) and s16.
/// Time stamps are gapless: anchor + samples emitted, re-anchored only when the container's
/// timestamp disagrees by more than `reanchorThreshold` (AetherEngine's AudioClockAnchor).
package final class AudioDecoder {
    static let reanchorThreshold = 0.1
    /// Sample rates a stream may have (a header outside this is damaged).
    static let sampleRates = 1000...768_000

    let codec: CodecContext
    package let streamIndex: Int
    package let timeBase: AVRational
    package let timeline: Timeline
    let output: AudioFormat
    private let resampler: Resampler
    private let chain: AudioFilterChain
    private let frame: Frame
    /// Where the next chunk starts: the anchor plus the samples emitted since.
    private var nextPTS: Double?
    private var buffer: [UInt8] = []
    /// The parameters of a stream taken over mid-stream, kept alive with the decoder.
    private var adopted: StreamParameters?

    package convenience init(stream: UnsafeMutablePointer<AVStream>, index: Int, output: AudioFormat, timeline: Timeline,
                             filters: String = "", equalizer: EqualizerCurve = .flat) throws(FFmpegError) {
        guard let par = stream.pointee.codecpar else {
            throw FFmpegError(function: "avcodec_parameters", message: "stream \(index) has no parameters")
        }
        try self.init(parameters: par, timeBase: stream.pointee.time_base, index: index, output: output, timeline: timeline,
                      filters: filters, equalizer: equalizer)
    }

    /// A decoder for the stream the packets of stream `index` now come from (a DASH period of
    /// another codec; the packets are stamped in `timeBase`, the first stream's).
    package convenience init(adopting next: StreamParameters, timeBase: AVRational, index: Int, output: AudioFormat,
                             timeline: Timeline, filters: String = "", equalizer: EqualizerCurve = .flat) throws(FFmpegError) {
        try self.init(parameters: next.pointer, timeBase: timeBase, index: index, output: output, timeline: timeline,
                      filters: filters, equalizer: equalizer)
        adopted = next
    }

    private init(parameters par: UnsafeMutablePointer<AVCodecParameters>, timeBase: AVRational, index: Int, output: AudioFormat,
                 timeline: Timeline, filters: String, equalizer: EqualizerCurve) throws(FFmpegError) {
        // A damaged header can claim any rate or channel count (2147483647 Hz made a resampler
        // ask for gigabytes): refuse what no real stream has.
        let rate = Int(par.pointee.sample_rate), channels = Int(par.pointee.ch_layout.nb_channels)
        guard rate == 0 || AudioDecoder.sampleRates.contains(rate), channels <= 64 else {
            throw FFmpegError(function: "audio stream", message: "\(rate) Hz, \(channels) channels is out of range",
                              code: aether_AVERROR(EINVAL))
        }
        codec = try CodecContext(parameters: par, timeBase: timeBase, threads: 1)
        streamIndex = index
        self.timeBase = timeBase
        self.timeline = timeline
        self.output = output
        resampler = Resampler(outputRate: output.sampleRate, outputChannels: output.channels)
        frame = try Frame()
        chain = try AudioFilterChain(filters: filters, equalizer: equalizer)
    }

    package var decoderName: String { codec.decoderName }
    /// `--af` (``AudioFilterChain/filters``).
    package var filters: String { chain.filters }
    /// `--equalizer` (``AudioFilterChain/equalizer``).
    package var equalizer: EqualizerCurve { chain.equalizer }
    /// The equalizer as it runs (``AudioFilterChain/runningEqualizer``).
    package var runningEqualizer: EqualizerCurve { chain.runningEqualizer }
    package var rate: Double { chain.rate }

    package func flush() {
        codec.flush()
        chain.reset()
        nextPTS = nil
    }

    /// Another equalizer from the next frame on (``AudioFilterChain/setEqualizer(_:)``).
    package func setEqualizer(_ curve: EqualizerCurve) { chain.setEqualizer(curve) }

    /// The equalizer's running filters, for the item that continues the device (gapless).
    package func releaseEqualizer() -> EqualizerStage? { chain.releaseStage() }

    /// Takes over the item before's running equalizer (``releaseEqualizer()``), after a flush.
    package func inheritEqualizer(_ stage: EqualizerStage) { chain.inherit(stage) }

    /// Speed from the next frame on (0.25–4); pitch is kept by atempo.
    package func setRate(_ rate: Double) {
        guard chain.setRate(rate) else { return }
        nextPTS = nil
    }

    /// Sends `packet` (nil = drain) and returns converted chunks.
    package func decode(_ packet: Packet?) throws -> [AudioChunk] {
        var chunks: [AudioChunk] = []
        var pending = true
        while pending {
            pending = try codec.send(packet) == .full
            while try codec.receive(into: frame) {
                defer { frame.unref() }
                if let chunk = try convert(frame) { chunks.append(chunk) }
            }
        }
        return chunks
    }

    private func convert(_ decoded: Frame) throws -> AudioChunk? {
        guard AudioDecoder.sampleRates.contains(Int(decoded.pointer.pointee.sample_rate)),
              decoded.pointer.pointee.ch_layout.nb_channels <= 64 else {
            throw FFmpegError(function: "audio frame", message: "\(decoded.pointer.pointee.sample_rate) Hz is out of range",
                              code: aether_AVERROR(EINVAL))
        }
        let rate = Double(max(1, decoded.pointer.pointee.sample_rate))
        let framePTS = timeline.seconds(decoded.pts, timeBase)
        var start = nextPTS ?? framePTS ?? 0
        if let framePTS, abs(framePTS - start) > AudioDecoder.reanchorThreshold { start = framePTS }
        let inputDuration = Double(decoded.sampleCount) / rate
        nextPTS = start + inputDuration

        buffer.removeAll(keepingCapacity: true)
        // Through the chain even when nothing applies: it keeps what was played, so that an
        // equalizer turned on starts from it.
        try chain.run(decoded) { try resampler.convert($0, appendingTo: &buffer) }
        let count = buffer.count / 2
        guard count > 0 else { return nil }
        let samples = buffer.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(count)) }
        let outFrames = Double(count / output.channels)
        return AudioChunk(pts: start, samples: samples,
                          mediaDuration: outFrames / Double(output.sampleRate) * chain.rate)
    }
}
