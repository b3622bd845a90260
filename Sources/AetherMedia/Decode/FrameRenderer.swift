import AetherBase
import CFFmpeg

/// Converts a video stream's decoded frames to upright RGB24 at the size the host asked for:
/// PQ/HLG tone-mapped to SDR BT.709 (``ToneMapper``), else scaled by libswscale (8-bit sources
/// staged as the host chose, ``Scaler/Staging``), then turned by the stream's display matrix.
/// Used by the video thread only, through its ``VideoDecoder``.
final class FrameRenderer {
    /// Counter-clockwise quarter turns that make the picture upright (the stream's display
    /// matrix, read by ``StillGeometry``: the rule the stills follow too).
    let rotation: Int
    private let toneMapper: ToneMapper?
    private var scaler = Scaler()
    /// A turned picture is scaled here first (reused while the size holds).
    private var unturned: PixelBuffer?
    /// What ``seconds`` is measured on.
    private let time: TimeSource
    /// Seconds spent converting since the caller last took them.
    var seconds = 0.0

    init(stream: UnsafeMutablePointer<AVStream>, parameters: UnsafeMutablePointer<AVCodecParameters>,
         time: TimeSource) throws(FFmpegError) {
        let transfer = parameters.pointee.color_trc
        toneMapper = ToneMapper.needsMapping(transfer) ? try ToneMapper(transfer: transfer, timeBase: stream.pointee.time_base) : nil
        rotation = StillGeometry.rotation(of: stream)
        self.time = time
    }

    /// Drops the tone mapper's graph (after a seek; it is rebuilt for the next frame).
    func reset() { toneMapper?.reset() }

    /// Converts `decoded` to RGB24 at `size` into `pixels` (`size.width * size.height * 3`
    /// bytes), tone-mapping HDR sources first.
    func render(_ decoded: Frame, size: PixelSize, into pixels: PixelBuffer) throws(FFmpegError) {
        let start = time.seconds
        defer { seconds += time.seconds - start }
        guard pixels.count == size.width * size.height * 3, pixels.count > 0 else {
            throw FFmpegError(function: "render", message: "a \(pixels.count)-byte buffer for \(size)")
        }
        guard rotation != 0 else {
            try scale(decoded, size: size, into: pixels)
            return
        }
        // Upright `size`: scaled to the size before the turn, then turned into place.
        let before = rotation == 180 ? size : PixelSize(width: size.height, height: size.width)
        let scratch = unturned.flatMap { $0.count == pixels.count ? $0 : nil } ?? PixelBuffer(count: pixels.count)
        unturned = scratch
        try scale(decoded, size: before, into: scratch)
        StillGeometry.rotate(scratch.base, width: before.width, height: before.height, degrees: rotation, into: pixels.base)
    }

    /// Stages resized 8-bit sources as `staging` says from now on (a new scaler when it changes).
    func stageEightBit(_ staging: Scaler.Staging) {
        guard scaler.eightBitStaging != staging else { return }
        scaler = Scaler(eightBitStaging: staging)
    }

    private func scale(_ decoded: Frame, size: PixelSize, into pixels: PixelBuffer) throws(FFmpegError) {
        if let toneMapper, try toneMapper.render(decoded, size: size, into: pixels.mutableBytes) { return }
        try scaler.scale(decoded, width: size.width, height: size.height, format: AV_PIX_FMT_RGB24,
                         into: pixels.base, stride: size.width * 3)
    }
}
