/// Pass 2 of the sixel encoder: palette indices → sixel bands.
///
/// For each six-row band it collects, per colour present in the band, a row of sixel bits and
/// the column span the colour occupies; then it writes each colour's span run-length encoded.
/// Colours absent from a band cost nothing, and a colour's register is defined at its first
/// use in the image (`#i;2;r;g;b#i`: xterm needs the selection after the definition).
final class SixelRasterizer {
    private var width = 0
    private var bits: UnsafeMutablePointer<UInt8>
    private var minX = [Int32](repeating: .max, count: 256)
    private var maxX = [Int32](repeating: -1, count: 256)
    private var order = [UInt8](repeating: 0, count: 256)

    init() {
        bits = .allocate(capacity: 1)
        bits.initialize(to: 0)
    }

    deinit { bits.deallocate() }

    private func prepare(width: Int) {
        guard width != self.width else { return }
        bits.deallocate()
        bits = .allocate(capacity: 256 * width)
        bits.initialize(repeating: 0, count: 256 * width)
        self.width = width
    }

    /// Writes a complete DCS sixel image; returns the number of palette registers used.
    func write(indices: UnsafePointer<UInt8>, width: Int, height: Int, palette: SixelPalette,
               output: ByteBuffer) -> Int {
        prepare(width: width)
        // DCS P1=0 (aspect from raster attributes) ; P2=1 (unset pixels keep their colour) ; 0 q
        output.append(Self.header)
        output.append("\"1;1;\(width);\(height)")
        var defined = [Bool](repeating: false, count: 256)
        var used = 0
        let bits = self.bits
        let percents = palette.percents
        minX.withUnsafeMutableBufferPointer { minX in
            maxX.withUnsafeMutableBufferPointer { maxX in
                order.withUnsafeMutableBufferPointer { order in
                    for band in stride(from: 0, to: height, by: 6) {
                        var count = 0
                        for r in 0..<min(6, height - band) {
                            let row = indices + (band + r) * width
                            let bit = UInt8(1) << UInt8(r)
                            var x = 0
                            while x < width {
                                let c = Int(row[x])
                                let start = x
                                x += 1
                                while x < width && Int(row[x]) == c { x += 1 }
                                let line = bits + c * width
                                for i in start..<x { line[i] |= bit }
                                if minX[c] == .max {
                                    order[count] = UInt8(c)
                                    count += 1
                                    minX[c] = Int32(start)
                                    maxX[c] = Int32(x - 1)
                                } else {
                                    if Int32(start) < minX[c] { minX[c] = Int32(start) }
                                    if Int32(x - 1) > maxX[c] { maxX[c] = Int32(x - 1) }
                                }
                            }
                        }
                        for k in 0..<count {
                            let c = Int(order[k])
                            let lo = Int(minX[c]), hi = Int(maxX[c])
                            let line = bits + c * width
                            output.write(maxBytes: hi - lo + 1 + 48) { w in
                                if k > 0 { w.byte(UInt8(ascii: "$")) }
                                w.byte(UInt8(ascii: "#"))
                                w.decimal(c)
                                if !defined[c] {
                                    defined[c] = true
                                    used += 1
                                    let p = c < percents.count ? percents[c] : 0
                                    w.bytes(UInt8(ascii: ";"), UInt8(ascii: "2"), UInt8(ascii: ";"))
                                    w.decimal(Int(p >> 16 & 0xFF))
                                    w.byte(UInt8(ascii: ";"))
                                    w.decimal(Int(p >> 8 & 0xFF))
                                    w.byte(UInt8(ascii: ";"))
                                    w.decimal(Int(p & 0xFF))
                                    // xterm does not select a register by defining it: select it again.
                                    w.byte(UInt8(ascii: "#"))
                                    w.decimal(c)
                                }
                                if lo > 0 { Self.run(&w, 63, lo) }
                                var x = lo
                                while x <= hi {
                                    let v = line[x]
                                    var n = 1
                                    while x + n <= hi && line[x + n] == v { n += 1 }
                                    Self.run(&w, 63 &+ v, n)
                                    x += n
                                }
                            }
                            (line + lo).update(repeating: 0, count: hi - lo + 1)
                            minX[c] = .max
                            maxX[c] = -1
                        }
                        if band + 6 < height { output.append(UInt8(ascii: "-")) }
                    }
                }
            }
        }
        output.append(Self.trailer)
        return used
    }

    /// A run of `n` identical sixels: `!n c` when that is shorter.
    @inline(__always) private static func run(_ w: inout ByteWriter, _ ch: UInt8, _ n: Int) {
        if n >= 4 {
            w.byte(UInt8(ascii: "!"))
            w.decimal(n)
            w.byte(ch)
        } else {
            for _ in 0..<n { w.byte(ch) }
        }
    }

    static let header: [UInt8] = Array("\u{1B}P0;1;0q".utf8)
    static let trailer: [UInt8] = Array("\u{1B}\\".utf8)
}
