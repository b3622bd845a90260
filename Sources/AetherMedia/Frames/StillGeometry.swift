import AetherBase
import CFFmpeg

/// The shape of a still: the decoded frame's size, its sample aspect ratio and the stream's
/// display rotation, and from them the upright display size and the size to scale to before the
/// pixels are turned.
package struct StillGeometry: Equatable {
    /// Decoded picture size.
    let codedWidth: Int, codedHeight: Int
    /// Pixel width ÷ pixel height (1 for square pixels).
    let sampleAspect: Double
    /// Counter-clockwise quarter turns that make the picture upright: 0, 90, 180 or 270.
    let rotation: Int

    /// Largest display edge handed out, whatever the stream claims.
    static let maxEdge = 16384

    init(codedWidth: Int, codedHeight: Int, sampleAspect: Double, rotation: Int) {
        self.codedWidth = max(1, codedWidth)
        self.codedHeight = max(1, codedHeight)
        self.sampleAspect = sampleAspect.sane(in: 0.01...100) ?? 1
        self.rotation = rotation
    }

    /// The display size: anamorphic pixels widen the picture (SAR > 1) or make it taller
    /// (SAR < 1), as mpv does, so no source pixel is thrown away; then the rotation.
    var displaySize: PixelSize {
        var w = Double(codedWidth), h = Double(codedHeight)
        if sampleAspect > 1 { w *= sampleAspect } else if sampleAspect < 1 { h /= sampleAspect }
        let size = PixelSize(width: Swift.min(Self.maxEdge, Swift.max(1, Int(w.rounded()))),
                             height: Swift.min(Self.maxEdge, Swift.max(1, Int(h.rounded()))))
        return isQuarterTurn ? PixelSize(width: size.height, height: size.width) : size
    }

    var isQuarterTurn: Bool { rotation == 90 || rotation == 270 }

    /// The display size fitted into `maxWidth` × `maxHeight` (either may be nil), aspect kept,
    /// never enlarged.
    func outputSize(maxWidth: Int?, maxHeight: Int?) -> PixelSize {
        let d = displaySize
        var factor = 1.0
        if let maxWidth { factor = Swift.min(factor, Double(Swift.max(1, maxWidth)) / Double(d.width)) }
        if let maxHeight { factor = Swift.min(factor, Double(Swift.max(1, maxHeight)) / Double(d.height)) }
        return PixelSize(width: Swift.max(1, Int((Double(d.width) * factor).rounded())),
                         height: Swift.max(1, Int((Double(d.height) * factor).rounded())))
    }

    /// What the frame is scaled to before it is turned, for an upright `output`.
    func scaledSize(for output: PixelSize) -> PixelSize {
        isQuarterTurn ? PixelSize(width: output.height, height: output.width) : output
    }

    /// The rotation of a display matrix (`av_display_rotation_get`, counter-clockwise degrees),
    /// to the nearest quarter turn in 0..<360; 0 without a matrix.
    package static func rotation(of stream: UnsafePointer<AVStream>) -> Int {
        var size = 0
        guard let data = aether_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return 0 }
        return data.withMemoryRebound(to: Int32.self, capacity: 9) { rotation(matrix: Array(UnsafeBufferPointer(start: $0, count: 9))) }
    }

    /// The rotation of a display matrix's nine values (MP4's `tkhd` order: a b u c d v x y w,
    /// 16.16 and 2.30 fixed point), as ``rotation(of:)``; 0 for anything but nine.
    package static func rotation(matrix: [Int32]) -> Int {
        guard matrix.count == 9 else { return 0 }
        let degrees = matrix.withUnsafeBufferPointer { av_display_rotation_get($0.baseAddress!) }
        guard degrees.isFinite else { return 0 }
        let quarter = Int((degrees / 90).rounded())
        return ((quarter % 4) + 4) % 4 * 90
    }

    /// Turns packed RGB24 pixels counter-clockwise by `degrees` (90, 180 or 270; others are
    /// returned as they are). The result of a quarter turn is `height` wide and `width` tall.
    static func rotate(_ pixels: [UInt8], width: Int, height: Int, degrees: Int) -> [UInt8] {
        guard [90, 180, 270].contains(degrees), pixels.count == width * height * 3 else { return pixels }
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                rotate(src.baseAddress!, width: width, height: height, degrees: degrees, into: dst.baseAddress!)
            }
        }
        return out
    }

    /// ``rotate(_:width:height:degrees:)`` between buffers the caller owns (playback turns each
    /// frame into its output buffer): `src` is `width` × `height` packed RGB24, `dst` as large.
    package static func rotate(_ src: UnsafePointer<UInt8>, width: Int, height: Int, degrees: Int,
                               into dst: UnsafeMutablePointer<UInt8>) {
        let outWidth = degrees == 180 ? width : height
        for y in 0..<height {
            for x in 0..<width {
                // Where source pixel (x, y) lands.
                let (dx, dy): (Int, Int)
                switch degrees {
                case 90: (dx, dy) = (y, width - 1 - x)          // counter-clockwise
                case 180: (dx, dy) = (width - 1 - x, height - 1 - y)
                case 270: (dx, dy) = (height - 1 - y, x)       // 270 ccw = clockwise
                default: (dx, dy) = (x, y)
                }
                let s = (y * width + x) * 3, d = (dy * outWidth + dx) * 3
                dst[d] = src[s]
                dst[d + 1] = src[s + 1]
                dst[d + 2] = src[s + 2]
            }
        }
    }
}
