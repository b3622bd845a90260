import AetherSubtitles
import Foundation

/// The `subtitle` fuzz target's WebVTT half (aether-fuzz): the bytes as a cue's settings. What
/// is promised traps when broken: an anchor of the numpad, a point inside the picture.
enum CuePlacementCheck {
    static func run(_ bytes: [UInt8]) {
        guard let p = CuePlacement.webVTT(String(decoding: bytes.prefix(4096), as: UTF8.self)) else { return }
        precondition((1...9).contains(p.alignment), "anchor \(p.alignment)")
        if let point = p.position {
            precondition((0...1).contains(point.x) && (0...1).contains(point.y), "point \(point)")
            let tags = p.assOverride(resX: 1280, resY: 720)
            precondition(tags.hasPrefix("{\\an") && tags.hasSuffix(")}") && tags.utf8.count < 40, tags)
        }
    }
}
