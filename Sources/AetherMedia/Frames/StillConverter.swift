import CFFmpeg

/// Turns the decoded pictures of one video stream into upright RGB24 stills of at most a given
/// size (display aspect kept, rotation applied, PQ/HLG tone-mapped): the stills' and the
/// inspector's frames tab's one conversion. It owns what it converts with: an accurate scaler
/// and, for PQ/HLG, a tone mapper. Used by one thread.
package final class StillConverter {
    /// The stream's parameters (owned by its format context, which outlives the converter): the
    /// sample aspect ratio when a frame carries none.
    package let parameters: UnsafeMutablePointer<AVCodecParameters>
    /// Counter-clockwise quarter turns that make the picture upright (``StillGeometry``).
    package let rotation: Int
    /// Stills are looked at closely: bicubic, chroma interpolated to every pixel, exact rounding
    /// (the fast path's nearest chroma cost 3 dB against ffmpeg's accurate conversion on grain).
    private let scaler = Scaler(flags: Scaler.accurateFlags)
    private let toneMapper: ToneMapper?

    package init(stream: UnsafeMutablePointer<AVStream>, parameters: UnsafeMutablePointer<AVCodecParameters>) throws(FFmpegError) {
        self.parameters = parameters
        rotation = StillGeometry.rotation(of: stream)
        toneMapper = ToneMapper.needsMapping(parameters.pointee.color_trc)
            ? try ToneMapper(transfer: parameters.pointee.color_trc, timeBase: stream.pointee.time_base) : nil
    }

    /// Drops the tone mapper's graph (after a seek; it is rebuilt for the next frame).
    package func reset() { toneMapper?.reset() }

    /// The picture in `frame` (media time `seconds`) as an upright RGB24 still at most
    /// `maxWidth`×`maxHeight`.
    package func still(of frame: Frame, seconds: Double, maxWidth: Int?, maxHeight: Int?) throws -> StillImage {
        let f = frame.pointer.pointee
        var sar = f.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = parameters.pointee.sample_aspect_ratio }
        let geometry = StillGeometry(codedWidth: Int(f.width), codedHeight: Int(f.height),
                                     sampleAspect: sar.num > 0 && sar.den > 0 ? Double(sar.num) / Double(sar.den) : 1,
                                     rotation: rotation)
        let output = geometry.outputSize(maxWidth: maxWidth, maxHeight: maxHeight)
        let scaled = geometry.scaledSize(for: output)
        let buffer = PixelBuffer(count: scaled.width * scaled.height * 3)
        let toneMapped = try toneMapper?.render(frame, size: scaled, into: buffer.mutableBytes) ?? false
        if !toneMapped {
            try scaler.scale(frame, width: scaled.width, height: scaled.height, format: AV_PIX_FMT_RGB24,
                             into: buffer.base, stride: scaled.width * 3)
        }
        let pixels = StillGeometry.rotate(buffer.copyBytes(), width: scaled.width, height: scaled.height, degrees: rotation)
        return StillImage(width: output.width, height: output.height, pixels: pixels, seconds: seconds,
                          isKeyframe: aether_frame_is_key(frame.pointer) != 0)
    }
}
