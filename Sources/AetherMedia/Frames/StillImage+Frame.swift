import CFFmpeg

extension StillImage {
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
