/// Blends premultiplied RGBA subtitle bitmaps into an RGB24 frame at their normalised position.
public enum SubtitleBlender {
    public static func blend(_ cue: SubtitleBitmap, into pixels: inout [UInt8], width: Int, height: Int) {
        guard cue.pixelWidth > 0, cue.pixelHeight > 0 else { return }
        let x0 = Int(cue.x * Double(width)), y0 = Int(cue.y * Double(height))
        let w = max(1, Int((cue.width * Double(width)).rounded())), h = max(1, Int((cue.height * Double(height)).rounded()))
        for y in 0..<h {
            let dy = y0 + y
            guard dy >= 0, dy < height else { continue }
            let sy = min(cue.pixelHeight - 1, y * cue.pixelHeight / h)
            for x in 0..<w {
                let dx = x0 + x
                guard dx >= 0, dx < width else { continue }
                let sx = min(cue.pixelWidth - 1, x * cue.pixelWidth / w)
                let s = (sy * cue.pixelWidth + sx) * 4
                let a = Int(cue.rgba[s + 3])
                guard a > 0 else { continue }
                let d = (dy * width + dx) * 3
                for c in 0..<3 {
                    pixels[d + c] = UInt8(min(255, Int(cue.rgba[s + c]) + Int(pixels[d + c]) * (255 - a) / 255))
                }
            }
        }
    }
}
