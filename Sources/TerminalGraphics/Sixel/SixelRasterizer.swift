import AetherBase

/// Pass 2 of the sixel encoder: palette indices → sixel bands, painting only what changed.
///
/// Each pixel is one of three kinds, from this frame's index and the index the terminal shows
/// (`previous`):
/// - *required*: the index differs from what is shown (or nothing is known): it must be painted;
/// - *optional*: the terminal already shows this colour there: painting it again is harmless;
/// - *transparent*: index ``ColorLookup/none``: never painted (the image is drawn with `P2=1`,
///   so unset pixels keep whatever the terminal shows there).
///
/// For each six-row band it walks the columns once and collects, per colour, the columns where
/// the colour has a required pixel, with the sixel bits of all its pixels there (required and
/// optional rows together, so a column costs one character however many of its rows changed):
/// appended in column order with their colour, then put in colour order by a counting sort.
/// A column holds at most six colours, so the band's entries fit in six per column whatever
/// the palette (before: a row of `width` per colour, 1.3 MB at 1280 px, all of it resident).
/// The columns are read sixteen at a time with vector compares (``sixteenColumns``), the tail
/// of a band one at a time; both list the same entries (on grainy 1280×768 frames the band
/// pass took 1.9–2.0 ms a frame instead of 2.8–2.9, `aether-bench graphics`).
/// Then each colour is written: the columns between its entries are skipped as blank sixels
/// (`?`, run-length encoded). A colour with nothing required in a band costs nothing there; a
/// band with nothing required costs one `-`; a frame with nothing required writes no image at
/// all.
///
/// A colour's register is defined at its first use in the image (`#i;2;r;g;b#i`: xterm needs
/// the selection after the definition). All buffers are sized once per width.
final class SixelRasterizer {
    private var width = 0
    /// The band's entries `x << 16 | required << 8 | bits` in column order, and their colours
    /// (six per column at most).
    private var found: UnsafeMutablePointer<UInt32>
    private var foundColours: UnsafeMutablePointer<UInt8>
    /// The same entries by colour, each colour's in column order.
    private var entries: UnsafeMutablePointer<UInt32>
    private let counts: UnsafeMutablePointer<Int32>
    /// Per colour, where its entries end in `entries` once sorted.
    private let ends: UnsafeMutablePointer<Int32>
    /// Colours in order of first appearance in the band.
    private let order: UnsafeMutablePointer<UInt8>
    private let defined: UnsafeMutablePointer<Bool>
    /// One column's distinct colours, and per colour its sixel bits and required flag in the
    /// column (zero between columns).
    private let column: UnsafeMutablePointer<UInt8>
    private let masks: UnsafeMutablePointer<UInt32>

    /// Sixteen columns' rows, their colours' masks and the rows that lead a kept colour, as
    /// the vector pass stores them for the entries (13 × 16 bytes).
    private let lanes: UnsafeMutableRawPointer
    /// Sixteen columns at a time (false: one at a time, as the tail of a band; for tests,
    /// which compare the two).
    var sixteenColumnsAtOnce = true

    private static let requiredFlag: UInt32 = 0x100

    init() {
        entries = .allocate(capacity: 1)
        entries.initialize(to: 0)
        found = .allocate(capacity: 1)
        found.initialize(to: 0)
        foundColours = .allocate(capacity: 1)
        foundColours.initialize(to: 0)
        ends = .allocate(capacity: 256)
        ends.initialize(repeating: 0, count: 256)
        counts = .allocate(capacity: 256)
        counts.initialize(repeating: 0, count: 256)
        order = .allocate(capacity: 256)
        order.initialize(repeating: 0, count: 256)
        defined = .allocate(capacity: 256)
        defined.initialize(repeating: false, count: 256)
        column = .allocate(capacity: 7)
        column.initialize(repeating: 0, count: 7)
        masks = .allocate(capacity: 256)
        masks.initialize(repeating: 0, count: 256)
        lanes = .allocate(byteCount: 13 * 16, alignment: 16)
        lanes.initializeMemory(as: UInt8.self, repeating: 0, count: 13 * 16)
    }

    deinit {
        entries.deallocate()
        found.deallocate()
        foundColours.deallocate()
        ends.deallocate()
        counts.deallocate()
        order.deallocate()
        defined.deallocate()
        column.deallocate()
        masks.deallocate()
        lanes.deallocate()
    }

    private func prepare(width: Int) {
        guard width != self.width else { return }
        for buffer in [entries, found] { buffer.deallocate() }
        foundColours.deallocate()
        entries = .allocate(capacity: 6 * width)
        entries.initialize(repeating: 0, count: 6 * width)
        found = .allocate(capacity: 6 * width)
        found.initialize(repeating: 0, count: 6 * width)
        foundColours = .allocate(capacity: 6 * width)
        foundColours.initialize(repeating: 0, count: 6 * width)
        self.width = width
    }

    /// Writes one DCS sixel image with the required pixels of `indices` (see the type's note);
    /// writes nothing when no pixel is required. `height` is a multiple of 6; `rasterHeight`
    /// (default `height`) is the height the raster attributes give, for an image whose last
    /// band is only partly its own (its rows past it transparent). Returns the number of
    /// palette registers the image defines.
    func write(indices: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, width: Int, height: Int,
               rasterHeight: Int? = nil, palette: SixelPalette, output: ByteBuffer) -> Int {
        prepare(width: width)
        defined.update(repeating: false, count: 256)
        var used = 0
        var started = false
        var pendingNewlines = 0
        let entries = self.entries, counts = self.counts, order = self.order, defined = self.defined
        let found = self.found, foundColours = self.foundColours, ends = self.ends
        let column = self.column, masks = self.masks, lanes = self.lanes
        let runs = RunCodes.table
        let vectors = sixteenColumnsAtOnce
        palette.percents.withUnsafeBufferPointer { percents in
            for band in stride(from: 0, to: height, by: 6) {
                let top = indices + band &* width, shownTop = previous + band &* width
                var colours = 0
                var entryCount = 0
                /// Lists colour `c`'s entry (kept when `add` is 1, overwritten next when 0).
                @inline(__always) func list(_ c: UInt8, _ entry: UInt32, add: Int32) {
                    let ci = Int(c)
                    let n = counts[ci]
                    order[colours] = c
                    colours &+= n == 0 ? Int(add) : 0
                    found[entryCount] = entry
                    foundColours[entryCount] = c
                    entryCount &+= Int(add)
                    counts[ci] = n &+ add
                }
                // Columns → entries. A column where no pixel changed has no required entry,
                // so it is skipped whole (sixteen or eight columns at a time when it can).
                var x = 0
                while x < width {
                    if vectors, x &+ 16 <= width {
                        Self.sixteenColumns(top + x, shownTop + x, width: width, into: lanes)
                        let keep = lanes.assumingMemoryBound(to: UInt8.self) + 12 * 16
                        // An entry per kept row, in row order within each column (as below).
                        for j in 0..<16 {
                            var k = keep[j]
                            guard k != 0 else { continue }
                            let x16 = UInt32(truncatingIfNeeded: x &+ j) << 16
                            repeat {
                                let r = k.trailingZeroBitCount
                                k &= k &- 1
                                let c = lanes.load(fromByteOffset: r &* 16 &+ j, as: UInt8.self)
                                let m = UInt32(lanes.load(fromByteOffset: (6 &+ r) &* 16 &+ j, as: UInt8.self))
                                list(c, x16 | m | Self.requiredFlag, add: 1)
                            } while k != 0
                        }
                        x &+= 16
                        continue
                    }
                    if x &+ 8 <= width {
                        var diff: UInt64 = 0
                        for r in 0..<6 {
                            let o = r &* width &+ x
                            diff |= UnsafeRawPointer(top + o).loadUnaligned(as: UInt64.self)
                                ^ UnsafeRawPointer(shownTop + o).loadUnaligned(as: UInt64.self)
                        }
                        if diff == 0 {
                            x &+= 8
                            continue
                        }
                    }
                    // The column's distinct colours with their bits, without a branch on the
                    // colours (grain makes them unpredictable): each pixel ORs its bit into its
                    // colour's mask and lists the colour when the mask was empty.
                    var distinct = 0
                    for r in 0..<6 {
                        let o = r &* width &+ x
                        let c = top[o]
                        let required = c != shownTop[o] && c != ColorLookup.none
                        let m = masks[Int(c)]
                        column[distinct] = c
                        distinct &+= m == 0 ? 1 : 0
                        masks[Int(c)] = m | UInt32(1) << UInt32(r) | (required ? Self.requiredFlag : 0)
                    }
                    // An entry per colour with a required pixel: the others would be written
                    // as blanks (`?`) anyway. Stored unconditionally, kept only if required.
                    let x16 = UInt32(truncatingIfNeeded: x) << 16
                    for j in 0..<distinct {
                        let c = column[j]
                        let m = masks[Int(c)]
                        masks[Int(c)] = 0
                        list(c, x16 | m, add: m & Self.requiredFlag != 0 ? 1 : 0)
                    }
                    x &+= 1
                }
                // Entries in colour order (a counting sort: each colour's stay in column order).
                var end: Int32 = 0
                for k in 0..<colours {
                    let c = Int(order[k])
                    ends[c] = end
                    end &+= counts[c]
                }
                for i in 0..<entryCount {
                    let c = Int(foundColours[i])
                    let at = ends[c]
                    entries[Int(at)] = found[i]
                    ends[c] = at &+ 1
                }
                // Entries → sixels, colour by colour.
                var written = 0
                for k in 0..<colours {
                    let c = Int(order[k])
                    let n = Int(counts[c])
                    counts[c] = 0
                    let list = entries + (Int(ends[c]) - n)
                    if !started {
                        started = true
                        output.append(Self.header)
                        output.write(maxBytes: 32) { w in
                            w.bytes(UInt8(ascii: "\""), UInt8(ascii: "1"), UInt8(ascii: ";"))
                            w.bytes(UInt8(ascii: "1"), UInt8(ascii: ";"))
                            w.decimal(width)
                            w.byte(UInt8(ascii: ";"))
                            w.decimal(rasterHeight ?? height)
                        }
                    }
                    output.write(maxBytes: pendingNewlines + 48 + n * 16) { w in
                        for _ in 0..<pendingNewlines { w.byte(UInt8(ascii: "-")) }
                        if written > 0 { w.byte(UInt8(ascii: "$")) }
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
                        // `next` is the column after the last sixel written; runs of one
                        // character are held in (`pending`, `count`) until they end. A run
                        // and the blank columns before the next entry are each one table
                        // load and one store (grain makes their lengths unpredictable).
                        var next = 0
                        var pending: UInt8 = 0
                        var count = 0
                        for i in 0..<n {
                            let e = list[i]
                            let x = Int(e >> 16)
                            let ch = 63 &+ UInt8(truncatingIfNeeded: e & 63)
                            if x == next && ch == pending {
                                count += 1
                            } else {
                                Self.run(&w, pending, count, runs)
                                Self.run(&w, 63, x &- next, runs)
                                pending = ch
                                count = 1
                            }
                            next = x + 1
                        }
                        Self.run(&w, pending, count, runs)
                    }
                    pendingNewlines = 0
                    written += 1
                }
                if band + 6 < height { pendingNewlines += 1 }
            }
        }
        if started {
            // Every band's `-`, so the image is as tall as its raster attributes say.
            for _ in 0..<pendingNewlines { output.append(UInt8(ascii: "-")) }
            output.append(Self.trailer)
        }
        return used
    }

    private typealias Lanes = SIMD16<UInt8>

    /// One band's sixteen columns from `top` (rows `width` apart; `shown`: what the terminal
    /// shows there), the column pass without a loop over the rows: each row's colour is
    /// compared with the other five's at once. Stores at `out`, sixteen bytes each: the six
    /// rows' colours (0–5), the mask of the rows holding each row's colour (6–11), and (12) per
    /// column the rows that lead a colour with a required pixel. A row leads its colour where
    /// no row above holds it, so each colour of a column is listed once, in the order of its
    /// first row, as the one-column pass lists them. Nothing is kept where nothing changed.
    @inline(__always)
    private static func sixteenColumns(_ top: UnsafePointer<UInt8>, _ shown: UnsafePointer<UInt8>, width w: Int,
                                       into out: UnsafeMutableRawPointer) {
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> Lanes {
            UnsafeRawPointer(p).loadUnaligned(as: Lanes.self)
        }
        let zero = Lanes.zero
        @inline(__always) func bits(_ m: SIMDMask<SIMD16<Int8>>, _ b: UInt8) -> Lanes {
            zero.replacing(with: b, where: m)
        }
        let a0 = load(top), a1 = load(top + w), a2 = load(top + 2 &* w)
        let a3 = load(top + 3 &* w), a4 = load(top + 4 &* w), a5 = load(top + 5 &* w)
        let b0 = load(shown), b1 = load(shown + w), b2 = load(shown + 2 &* w)
        let b3 = load(shown + 3 &* w), b4 = load(shown + 4 &* w), b5 = load(shown + 5 &* w)
        let changed = (a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3) | (a4 ^ b4) | (a5 ^ b5)
        guard changed != zero else {
            out.storeBytes(of: zero, toByteOffset: 12 &* 16, as: Lanes.self)
            return
        }
        let none = Lanes(repeating: ColorLookup.none)
        // Required: the colour differs from what is shown and is not transparent.
        let required = bits((a0 .!= b0) .& (a0 .!= none), 1) | bits((a1 .!= b1) .& (a1 .!= none), 2)
            | bits((a2 .!= b2) .& (a2 .!= none), 4) | bits((a3 .!= b3) .& (a3 .!= none), 8)
            | bits((a4 .!= b4) .& (a4 .!= none), 16) | bits((a5 .!= b5) .& (a5 .!= none), 32)
        let e01 = a0 .== a1, e02 = a0 .== a2, e03 = a0 .== a3, e04 = a0 .== a4, e05 = a0 .== a5
        let e12 = a1 .== a2, e13 = a1 .== a3, e14 = a1 .== a4, e15 = a1 .== a5
        let e23 = a2 .== a3, e24 = a2 .== a4, e25 = a2 .== a5
        let e34 = a3 .== a4, e35 = a3 .== a5, e45 = a4 .== a5
        let m0 = Lanes(repeating: 1) | bits(e01, 2) | bits(e02, 4) | bits(e03, 8) | bits(e04, 16) | bits(e05, 32)
        let m1 = bits(e01, 1) | Lanes(repeating: 2) | bits(e12, 4) | bits(e13, 8) | bits(e14, 16) | bits(e15, 32)
        let m2 = bits(e02, 1) | bits(e12, 2) | Lanes(repeating: 4) | bits(e23, 8) | bits(e24, 16) | bits(e25, 32)
        let m3 = bits(e03, 1) | bits(e13, 2) | bits(e23, 4) | Lanes(repeating: 8) | bits(e34, 16) | bits(e35, 32)
        let m4 = bits(e04, 1) | bits(e14, 2) | bits(e24, 4) | bits(e34, 8) | Lanes(repeating: 16) | bits(e45, 32)
        let m5 = bits(e05, 1) | bits(e15, 2) | bits(e25, 4) | bits(e35, 8) | bits(e45, 16) | Lanes(repeating: 32)
        @inline(__always) func kept(_ m: Lanes, above: UInt8, _ b: UInt8) -> Lanes {
            bits(((m & Lanes(repeating: above)) .== zero) .& ((m & required) .!= zero), b)
        }
        let keep = kept(m0, above: 0, 1) | kept(m1, above: 1, 2) | kept(m2, above: 3, 4)
            | kept(m3, above: 7, 8) | kept(m4, above: 15, 16) | kept(m5, above: 31, 32)
        @inline(__always) func put(_ v: Lanes, _ slot: Int) { out.storeBytes(of: v, toByteOffset: slot &* 16, as: Lanes.self) }
        put(a0, 0)
        put(a1, 1)
        put(a2, 2)
        put(a3, 3)
        put(a4, 4)
        put(a5, 5)
        put(m0, 6)
        put(m1, 7)
        put(m2, 8)
        put(m3, 9)
        put(m4, 10)
        put(m5, 11)
        put(keep, 12)
    }

    /// A run of `n` identical sixels: `!n c` when that is shorter. A short run is one 4-byte
    /// store (the reservation has the slack): a loop here became a `memset` call per run, 1 %
    /// of the player's samples on grain.
    @inline(__always) private static func run(_ w: inout ByteWriter, _ ch: UInt8, _ n: Int) {
        if n >= 4 {
            w.byte(UInt8(ascii: "!"))
            w.decimal(n)
            w.byte(ch)
        } else {
            w.packed(UInt32(ch) &* 0x0101_0101, length: n)
        }
    }

    /// A run of `n` identical sixels from the table (`n` below ``RunCodes/count``; 0 writes
    /// nothing), or as ``run(_:_:_:)`` writes it.
    @inline(__always) private static func run(_ w: inout ByteWriter, _ ch: UInt8, _ n: Int,
                                              _ runs: UnsafePointer<RunCodes.Code>) {
        guard _fastPath(n < RunCodes.count) else { return run(&w, ch, n) }
        let code = runs[n]
        w.packed(UInt64(code.prefix) | UInt64(UInt32(ch) &* code.repeats) << UInt64(code.shift), length: Int(code.length))
    }

    /// DCS P1=0 (aspect from the raster attributes) ; P2=1 (pixels the image does not set keep
    /// what the terminal shows) ; P3=0 q.
    static let header: [UInt8] = Array("\u{1B}P0;1;0q".utf8)
    static let trailer: [UInt8] = Array("\u{1B}\\".utf8)
}

/// The bytes of a run of `n` identical sixels for every `n` below ``count``, as
/// ``SixelRasterizer`` writes them: the character `n` times below 4, else `!n` and the
/// character. A run of character `ch` is `prefix | (ch × repeats) << shift`, `length` bytes.
enum RunCodes {
    struct Code {
        /// `!n` (nothing below 4), little-endian.
        var prefix: UInt32
        /// 0x01 repeated `n` times below 4 (nothing for 0), else 0x01.
        var repeats: UInt32
        /// The prefix's bits.
        var shift: UInt8
        var length: UInt8
    }

    static let count = 1000

    /// Filled once, never written after.
    nonisolated(unsafe) static let table: UnsafePointer<Code> = {
        let codes = UnsafeMutablePointer<Code>.allocate(capacity: count)
        for n in 0..<count {
            if n < 4 {
                let repeats = UInt32(truncatingIfNeeded: (UInt64(1) << (8 * n) - 1) / 255)
                codes[n] = Code(prefix: 0, repeats: repeats, shift: 0, length: UInt8(n))
            } else {
                let digits = Array(String(n).utf8)
                var prefix = UInt32(UInt8(ascii: "!"))
                for (k, d) in digits.enumerated() { prefix |= UInt32(d) << (8 * UInt32(k + 1)) }
                codes[n] = Code(prefix: prefix, repeats: 1, shift: UInt8(8 * (digits.count + 1)),
                                length: UInt8(digits.count + 2))
            }
        }
        return UnsafePointer(codes)
    }()
}
