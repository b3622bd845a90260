/// An independent sixel decoder for the tests: DCS parameters, raster attributes, RGB and HLS
/// colour definitions, `!` repeats, `$` and `-`. Unset pixels stay at the background (0, 0, 0).
struct SixelDecoder {
    enum DecodeError: Error { case notSixel, malformed(String) }

    var width = 0
    var height = 0
    /// Raster attributes as given (`"Pan;Pad;Ph;Pv`).
    var raster: [Int] = []
    var pixels: [UInt8] = []
    /// Per pixel: did the image set it (with `P2=1`, unset pixels keep what the screen shows).
    var painted: [Bool] = []
    /// The DCS parameters before `q` (P1;P2;P3).
    var parameters: [Int] = []
    /// Registers defined in this image.
    var definedRegisters: Set<Int> = []
    /// Colour selections per band (for "only colours present in the band" checks).
    var selectionsPerBand: [[Int]] = []

    static func decode(_ bytes: [UInt8]) throws -> SixelDecoder {
        var d = SixelDecoder()
        try d.run(bytes)
        return d
    }

    private mutating func run(_ bytes: [UInt8]) throws {
        guard let p = bytes.firstIndex(of: 0x1B), p + 1 < bytes.count, bytes[p + 1] == UInt8(ascii: "P"),
              let q = bytes[p...].firstIndex(of: UInt8(ascii: "q")) else { throw DecodeError.notSixel }
        parameters = bytes[(p + 2)..<q].split(separator: UInt8(ascii: ";")).map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
        var i = q + 1
        var palette = [Int: (UInt8, UInt8, UInt8)]()
        var color = (UInt8(0), UInt8(0), UInt8(0))
        var selected = 0
        var x = 0, band = 0
        var maxX = 0
        var canvas = [Int: [UInt8]]()   // row → RGB row, grown on demand
        var set = [Int: [Bool]]()       // row → painted flags, grown on demand
        var bandSelections: [Int] = []
        func number() -> Int {
            var n = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                n = n * 10 + Int(bytes[i] - 0x30)
                i += 1
            }
            return n
        }
        func numbers() -> [Int] {
            var result = [number()]
            while i < bytes.count, bytes[i] == UInt8(ascii: ";") {
                i += 1
                result.append(number())
            }
            return result
        }
        func put(_ sixel: UInt8, _ count: Int) {
            let bits = sixel - 63
            for r in 0..<6 where bits & (1 << r) != 0 {
                let y = band * 6 + r
                var row = canvas[y] ?? []
                var flags = set[y] ?? []
                let need = (x + count) * 3
                if row.count < need { row += [UInt8](repeating: 0, count: need - row.count) }
                if flags.count < x + count { flags += [Bool](repeating: false, count: x + count - flags.count) }
                for k in 0..<count {
                    row[(x + k) * 3] = color.0
                    row[(x + k) * 3 + 1] = color.1
                    row[(x + k) * 3 + 2] = color.2
                    flags[x + k] = true
                }
                canvas[y] = row
                set[y] = flags
            }
            x += count
            maxX = max(maxX, x)
        }
        loop: while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x1B:
                break loop
            case UInt8(ascii: "\""):
                i += 1
                raster = numbers()
            case UInt8(ascii: "#"):
                i += 1
                let n = numbers()
                selected = n[0]
                if n.count >= 5 {
                    let c: (UInt8, UInt8, UInt8)
                    if n[1] == 2 {
                        func s(_ p: Int) -> UInt8 { UInt8((min(100, p) * 255 + 50) / 100) }
                        c = (s(n[2]), s(n[3]), s(n[4]))
                    } else if n[1] == 1 {
                        c = Self.hls(n[2], n[3], n[4])
                    } else {
                        throw DecodeError.malformed("colour space \(n[1])")
                    }
                    palette[selected] = c
                    definedRegisters.insert(selected)
                }
                guard let c = palette[selected] else { throw DecodeError.malformed("register \(selected) used before definition") }
                color = c
                // `#i;2;r;g;b#i` defines then selects: count one selection.
                if bandSelections.last != selected { bandSelections.append(selected) }
            case UInt8(ascii: "!"):
                i += 1
                let n = number()
                guard i < bytes.count, (63...126).contains(bytes[i]) else { throw DecodeError.malformed("repeat") }
                put(bytes[i], n)
                i += 1
            case UInt8(ascii: "$"):
                x = 0
                i += 1
            case UInt8(ascii: "-"):
                x = 0
                band += 1
                selectionsPerBand.append(bandSelections)
                bandSelections = []
                i += 1
            case 63...126:
                put(b, 1)
                i += 1
            case 0x0A, 0x0D:
                i += 1
            default:
                throw DecodeError.malformed("byte \(b) at \(i)")
            }
        }
        selectionsPerBand.append(bandSelections)
        width = raster.count >= 4 ? raster[2] : maxX
        height = raster.count >= 4 ? raster[3] : (band + 1) * 6
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for (y, row) in canvas where y < height {
            let n = min(row.count, width * 3)
            for k in 0..<n { pixels[y * width * 3 + k] = row[k] }
        }
        painted = [Bool](repeating: false, count: width * height)
        for (y, flags) in set where y < height {
            for x in 0..<min(flags.count, width) where flags[x] { painted[y * width + x] = true }
        }
    }

    /// DEC HLS (hue 0 = blue) to RGB.
    static func hls(_ h: Int, _ l: Int, _ s: Int) -> (UInt8, UInt8, UInt8) {
        let hue = Double((h + 240) % 360) / 360, lum = Double(l) / 100, sat = Double(s) / 100
        func f(_ t0: Double, _ p: Double, _ q: Double) -> Double {
            var t = t0
            if t < 0 { t += 1 }
            if t > 1 { t -= 1 }
            if t < 1 / 6 { return p + (q - p) * 6 * t }
            if t < 1 / 2 { return q }
            if t < 2 / 3 { return p + (q - p) * (2 / 3 - t) * 6 }
            return p
        }
        let q = lum < 0.5 ? lum * (1 + sat) : lum + sat - lum * sat, p = 2 * lum - q
        func c(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        return (c(f(hue + 1 / 3, p, q)), c(f(hue, p, q)), c(f(hue - 1 / 3, p, q)))
    }
}
