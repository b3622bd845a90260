extension PixelImage {
    /// The picture at `width` × `height` as packed RGB24: each output pixel averages the source
    /// pixels its footprint covers (a box filter, so a 320-pixel thumbnail shrunk to a 30-cell
    /// half-block preview does not alias), or takes the nearest one when enlarging.
    /// For small pictures (scrub previews); the video itself is scaled by libswscale.
    public func resampled(width: Int, height: Int) throws(PixelImageError) -> PixelImage {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        if width == self.width, height == self.height, format == .rgb24, stride == width * 3 { return self }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let bpp = format.bytesPerPixel
        let sw = self.width, sh = self.height, stride = self.stride
        withUnsafeBytes { raw in
            guard let src = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let y0 = y * sh / height
                    let y1 = max(y0 + 1, (y + 1) * sh / height)
                    for x in 0..<width {
                        let x0 = x * sw / width
                        let x1 = max(x0 + 1, (x + 1) * sw / width)
                        var r = 0, g = 0, b = 0
                        for yy in y0..<y1 {
                            var p = src + yy * stride + x0 * bpp
                            for _ in x0..<x1 {
                                r += Int(p[0])
                                g += Int(p[1])
                                b += Int(p[2])
                                p += bpp
                            }
                        }
                        let n = (y1 - y0) * (x1 - x0)
                        let o = (y * width + x) * 3
                        dst[o] = UInt8((r + n / 2) / n)
                        dst[o + 1] = UInt8((g + n / 2) / n)
                        dst[o + 2] = UInt8((b + n / 2) / n)
                    }
                }
            }
        }
        return try PixelImage(width: width, height: height, format: .rgb24, pixels: out)
    }
}
