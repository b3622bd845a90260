import CFFmpeg

/// Owns a `SwrContext` converting decoded audio to interleaved samples in the output format;
/// rebuilt when the input format changes. Freed exactly once.
public final class Resampler {
    private var context: OpaquePointer?
    private var inputKey: (Int32, Int32, String) = (-1, 0, "")
    public let outputRate: Int
    public let outputChannels: Int
    public let outputFormat: AVSampleFormat

    public init(outputRate: Int, outputChannels: Int, outputFormat: AVSampleFormat = AV_SAMPLE_FMT_S16) {
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        self.outputFormat = outputFormat
    }

    deinit { swr_free(&context) }

    public var bytesPerFrame: Int { Int(av_get_bytes_per_sample(outputFormat)) * outputChannels }

    private func configure(for frame: Frame) throws(FFmpegError) {
        let f = frame.pointer
        var inLayout = AVChannelLayout()
        if f.pointee.ch_layout.nb_channels > 0 {
            av_channel_layout_copy(&inLayout, &f.pointee.ch_layout)
        } else {
            av_channel_layout_default(&inLayout, 2)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            let n = inLayout.nb_channels
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_default(&inLayout, n)
        }
        let key = (f.pointee.format, f.pointee.sample_rate, ChannelLayoutName.describe(&inLayout))
        if context != nil, key == inputKey { return }
        swr_free(&context)
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(outputChannels))
        defer { av_channel_layout_uninit(&outLayout) }
        var ctx: OpaquePointer? = nil
        try check(swr_alloc_set_opts2(&ctx, &outLayout, outputFormat, Int32(outputRate),
                                      &inLayout, AVSampleFormat(f.pointee.format), f.pointee.sample_rate,
                                      0, nil), "swr_alloc_set_opts2")
        // Downmix keeps everything: centre and surrounds at -3 dB, and LFE at -6 dB (libswresample's
        // default drops LFE, so a stereo listener would lose the bass channel entirely).
        av_opt_set_double(UnsafeMutableRawPointer(ctx), "center_mix_level", 0.7071, 0)
        av_opt_set_double(UnsafeMutableRawPointer(ctx), "surround_mix_level", 0.7071, 0)
        av_opt_set_double(UnsafeMutableRawPointer(ctx), "lfe_mix_level", 0.5, 0)
        let initResult = swr_init(ctx)
        if initResult < 0 {
            swr_free(&ctx)
            throw FFmpegError(code: initResult, function: "swr_init")
        }
        context = ctx
        inputKey = key
    }

    /// Converts `frame`, appending interleaved output samples to `output`. Returns frames written.
    /// The corresponding C function is `swr_convert`.
    @discardableResult
    public func convert(_ frame: Frame, appendingTo output: inout [UInt8]) throws(FFmpegError) -> Int {
        try configure(for: frame)
        let f = frame.pointer
        let inSamples = Int(f.pointee.nb_samples)
        let capacity = Int(swr_get_out_samples(context, Int32(inSamples))) + 32
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: capacity * bytesPerFrame))
        let produced: Int32 = output.withUnsafeMutableBufferPointer { buf in
            var outPtr: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + start
            // extended_data is set on every decoded audio frame (it points at data for ≤ 8 planes).
            let input = f.pointee.extended_data.map {
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            }
            return swr_convert(context, &outPtr, Int32(capacity), input, Int32(inSamples))
        }
        if produced < 0 {
            output.removeLast(capacity * bytesPerFrame)
            throw FFmpegError(code: produced, function: "swr_convert")
        }
        output.removeLast((capacity - Int(produced)) * bytesPerFrame)
        return Int(produced)
    }
}
