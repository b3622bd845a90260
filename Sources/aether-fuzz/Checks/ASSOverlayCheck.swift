import AetherBase
import AetherMedia
import AetherSubtitles
import CLibass
import Foundation

/// The `ass` fuzz target's libass half (aether-fuzz): bytes are an ASS header, a NUL, then one
/// event per line, each shown 0–10 s; drawn by ``ASSOverlayRenderer`` (no fontconfig: drawings
/// and parsing, not font lookup) in two picture sizes at two moments. What is promised traps
/// when broken: the overlay inside the picture, its coverage in 0…1.
enum ASSOverlayCheck {
    static func run(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.count
        let header = ASSHeader(bytes: Array(bytes[..<split]), isNative: true)
        let rest = split < bytes.count ? bytes[(split + 1)...] : []
        let cues = rest.split(separator: UInt8(ascii: "\n")).prefix(64).enumerated().map { n, line in
            SubtitleCue(start: 0, end: 10, content: .text(""), styled: nil,
                        ass: ASSSource(header: header, event: String(decoding: line.prefix(ASSSource.maxEventBytes), as: UTF8.self)))
        }
        let renderer = ASSOverlayRenderer(fontconfig: false)
        for (w, h, t) in [(160, 90, 1.0), (64, 480, 5.5)] {
            renderer.update(cues: cues, atSeconds: t, width: w, height: h)
            guard let o = renderer.overlay else { continue }
            precondition(o.x >= 0 && o.y >= 0 && o.x + o.width <= w && o.y + o.height <= h, "overlay off the picture")
            precondition(o.pixels.count == o.width * o.height * 4, "overlay size")
            precondition(stride(from: 3, to: o.pixels.count, by: 4).allSatisfy { o.pixels[$0] >= 0 && o.pixels[$0] <= 1.0001 }, "coverage")
            var picture = [UInt8](repeating: 128, count: w * h * 3)
            o.blend(into: &picture, width: w, height: h)
        }
    }
}
