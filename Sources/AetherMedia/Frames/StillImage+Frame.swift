import CFFmpeg

extension StillImage {
    /// The picture in `frame` as an upright RGB24 still at most `maxWidth`×`maxHeight` (display
    /// aspect kept, rotation applied, PQ/HLG tone-mapped): the stills' and the inspector's
    /// frames tab's one conversion.
    package static func converting(_ frame: Frame, parameters: UnsafePointer<AVCodecParameters>, rotation: Int, scaler: Scaler,
                      toneMapper: ToneMapper?, seconds: Double, maxWidth: Int?, maxHeight: Int?) throws -> StillImage {
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

    /// The picture as an RGB24 `Frame` (pts 0), for libavcodec and libavfilter.
    package func rgbFrame() throws(FFmpegError) -> Frame {
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = AV_PIX_FMT_RGB24.rawValue
        f.pointee.pts = 0
        let rc = av_frame_get_buffer(f, 0)
        if rc < 0 { throw FFmpegError(code: rc, function: "av_frame_get_buffer") }
        guard let data = f.pointee.data.0 else { throw .outOfMemory("av_frame_get_buffer") }
        let rowBytes = width * 3, stride = Int(f.pointee.linesize.0)
        pixels.withUnsafeBufferPointer { src in
            guard let base = src.baseAddress else { return }
            for y in 0..<height { (data + y * stride).update(from: base + y * rowBytes, count: rowBytes) }
        }
        return frame
    }
}
