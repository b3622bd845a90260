#if canImport(Glibc)
import Glibc
#endif

/// How the sixel encoder spreads the error between a pixel and its palette colour.
public enum SixelDither: String, Sendable, CaseIterable {
    /// Nearest colour only: fastest, stable from frame to frame, bands on gradients.
    case none
    /// 8×8 Bayer threshold added before the lookup: cheap, stable in time (no crawling noise).
    case ordered
    /// Floyd–Steinberg error diffusion: best still-image quality, noise changes every frame.
    case errorDiffusion = "fs"

    /// Parses `--vo-sixel-dither` values; accepts mpv's names where they mean the same.
    public init?(option: String) {
        switch option.lowercased() {
        case "none", "off", "no": self = .none
        case "ordered", "bayer": self = .ordered
        case "fs", "floyd-steinberg", "error-diffusion", "errordiffusion", "diffusion": self = .errorDiffusion
        default: return nil
        }
    }
}

/// Pass 1 of the sixel encoder: maps every pixel to a palette index, with the chosen dither.
///
/// Noise hysteresis (none and ordered): a pixel keeps the index the terminal already shows
/// (`previous`) while that colour is within `threshold` (Euclidean RGB distance) of the new
/// pixel, so film grain and compression noise do not flip pixels between neighbouring palette
/// colours and get re-sent every frame. `previous` holds ``ColorLookup/none`` where the
/// terminal's pixel is unknown; those always take the nearest colour.
///
/// One per encoder: it keeps its scratch (ordered offsets, error-diffusion rows) from frame to
/// frame, so mapping allocates nothing in steady state.
final class Ditherer {
    private var offsets = [Int](repeating: 0, count: 64)
    private var offsetsAmplitude = 0
    /// Two rows of Floyd–Steinberg errors, `(width + 2) × 3` each.
    private var errors: [Int32] = []
    /// The 8×8 Bayer matrix (values 0…63).
    private static let bayer: [Int] = {
        var m = [Int](repeating: 0, count: 64)
        for y in 0..<8 {
            for x in 0..<8 {
                // Bit-reversed interleave of x ^ y and y gives the classic recursive matrix.
                let v = x ^ y
                let value = (v & 1) << 5 | (y & 1) << 4 | (v & 2) << 2 | (y & 2) << 1 | (v & 4) >> 1 | (y & 4) >> 2
                m[y * 8 + x] = value
            }
        }
        return m
    }()

    /// Ordered-dither offsets in `[-amplitude, amplitude]`.
    static func orderedOffsets(amplitude: Int) -> [Int] {
        bayer.map { (2 * $0 + 1 - 64) * amplitude / 64 }
    }

    /// - Parameter unchangedRows: per row, whether its pixels are those `previous` was mapped
    ///   from (none and ordered dither only): such a row takes `previous` where it is fully
    ///   known, as mapping it again would give.
    func map(_ image: PixelImage, lookup: ColorLookup, dither: SixelDither, amplitude: Int, threshold: Int,
             previous: UnsafePointer<UInt8>, unchangedRows: [Bool]? = nil, into indices: UnsafeMutablePointer<UInt8>) {
        let width = image.width, height = image.height
        image.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            switch dither {
            case .none, .ordered:
                let amplitude = dither == .ordered ? amplitude : 0
                if amplitude != offsetsAmplitude {
                    offsets = Self.orderedOffsets(amplitude: amplitude)
                    offsetsAmplitude = amplitude
                }
                let bpp = image.format.bytesPerPixel
                offsets.withUnsafeBufferPointer { offsets in
                    guard let offsets = offsets.baseAddress else { return }
                    for y in 0..<height {
                        let row = base + y * image.stride
                        let line = offsets + ((y & 7) << 3)
                        let previous = previous + y * width, out = indices + y * width
                        if let unchangedRows, unchangedRows[y], memchr(previous, Int32(ColorLookup.none), width) == nil {
                            out.update(from: previous, count: width)
                            continue
                        }
                        // Each combination its own loop, the pixel size and dither constants in it.
                        switch (bpp, dither == .ordered) {
                        case (4, false): Self.mapRow(row, width: width, bpp: 4, ordered: false, offsets: line, lookup: lookup,
                                                     threshold: threshold, previous: previous, into: out)
                        case (4, true): Self.mapRow(row, width: width, bpp: 4, ordered: true, offsets: line, lookup: lookup,
                                                    threshold: threshold, previous: previous, into: out)
                        case (_, false): Self.mapRow(row, width: width, bpp: 3, ordered: false, offsets: line, lookup: lookup,
                                                     threshold: threshold, previous: previous, into: out)
                        case (_, true): Self.mapRow(row, width: width, bpp: 3, ordered: true, offsets: line, lookup: lookup,
                                                    threshold: threshold, previous: previous, into: out)
                        }
                    }
                }
            case .errorDiffusion:
                floydSteinberg(base, image: image, lookup: lookup, into: indices)
            }
        }
    }

    /// One row of nearest-colour (optionally ordered) mapping with the noise hysteresis. The
    /// keep-or-replace choice is a select, not a branch: grain makes it unpredictable.
    @inline(__always)
    private static func mapRow(_ row: UnsafePointer<UInt8>, width: Int, bpp: Int, ordered: Bool,
                               offsets: UnsafePointer<Int>, lookup: ColorLookup, threshold: Int,
                               previous: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let limit = Int32(min(threshold, 1 << 12) * min(threshold, 1 << 12))
        // Index 255 (unknown) holds a colour far from every pixel: it is never kept.
        let red = lookup.red, green = lookup.green, blue = lookup.blue
        var p = row
        for x in 0..<width {
            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
            p += bpp
            let n: UInt8
            if ordered {
                let o = Int32(offsets[x & 7])
                n = lookup.index(Int(min(255, max(0, r &+ o))), Int(min(255, max(0, g &+ o))), Int(min(255, max(0, b &+ o))))
            } else {
                n = lookup.index(Int(r), Int(g), Int(b))
            }
            let s = previous[x]
            let k = Int(s)
            let dr = red[k] &- r, dg = green[k] &- g, db = blue[k] &- b
            out[x] = dr &* dr &+ dg &* dg &+ db &* db <= limit ? s : n
        }
    }

    /// Floyd–Steinberg, left to right, errors kept in 1/16 units in two rows.
    private func floydSteinberg(_ base: UnsafePointer<UInt8>, image: PixelImage, lookup: ColorLookup,
                                       into indices: UnsafeMutablePointer<UInt8>) {
        let width = image.width, height = image.height, bpp = image.format.bytesPerPixel
        let colors = lookup.palette.colors
        let n = (width + 2) * 3
        if errors.count != 2 * n { errors = [Int32](repeating: 0, count: 2 * n) }
        errors.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        errors.withUnsafeMutableBufferPointer { rows in
            guard let rows = rows.baseAddress else { return }
            var cur = rows, nxt = rows + n
            for y in 0..<height {
                let row = base + y * image.stride
                let out = indices + y * width
                    colors.withUnsafeBufferPointer { pal in
                        for x in 0..<width {
                            let p = row + x * bpp
                            let e = (x + 1) * 3
                            let r = min(255, max(0, Int(p[0]) + Int((cur[e] + 8) >> 4)))
                            let g = min(255, max(0, Int(p[1]) + Int((cur[e + 1] + 8) >> 4)))
                            let b = min(255, max(0, Int(p[2]) + Int((cur[e + 2] + 8) >> 4)))
                            let i = lookup.index(r, g, b)
                            out[x] = i
                            let c = pal[Int(i)]
                            let er = Int32(r - Int(c >> 16 & 0xFF))
                            let eg = Int32(g - Int(c >> 8 & 0xFF))
                            let eb = Int32(b - Int(c & 0xFF))
                            cur[e + 3] += 7 * er
                            cur[e + 4] += 7 * eg
                            cur[e + 5] += 7 * eb
                            nxt[e - 3] += 3 * er
                            nxt[e - 2] += 3 * eg
                            nxt[e - 1] += 3 * eb
                            nxt[e] += 5 * er
                            nxt[e + 1] += 5 * eg
                            nxt[e + 2] += 5 * eb
                            nxt[e + 3] += er
                            nxt[e + 4] += eg
                            nxt[e + 5] += eb
                        }
                    }
                swap(&cur, &nxt)
                nxt.update(repeating: 0, count: n)
            }
        }
    }
}
