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
        let column = self.column, masks = self.masks
        palette.percents.withUnsafeBufferPointer { percents in
            for band in stride(from: 0, to: height, by: 6) {
                let top = indices + band &* width, shownTop = previous + band &* width
                var colours = 0
                var entryCount = 0
                // Columns → entries. A column where no pixel changed has no
                // required entry, so it is skipped whole (eight columns at a time when it can).
                var x = 0
                while x < width {
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
                        let ci = Int(c)
                        let m = masks[ci]
                        masks[ci] = 0
                        let n = Int(counts[ci])
                        let add = m & Self.requiredFlag != 0 ? 1 : 0
                        order[colours] = c
                        colours &+= n == 0 ? add : 0
                        found[entryCount] = x16 | m
                        foundColours[entryCount] = c
                        entryCount &+= add
                        counts[ci] = Int32(truncatingIfNeeded: n &+ add)
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
                        // character are held in (`pending`, `count`) until they end.
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
                                if count > 0 { Self.run(&w, pending, count) }
                                if x > next { Self.run(&w, 63, x - next) }
                                pending = ch
                                count = 1
                            }
                            next = x + 1
                        }
                        Self.run(&w, pending, count)
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

    /// DCS P1=0 (aspect from the raster attributes) ; P2=1 (pixels the image does not set keep
    /// what the terminal shows) ; P3=0 q.
    static let header: [UInt8] = Array("\u{1B}P0;1;0q".utf8)
    static let trailer: [UInt8] = Array("\u{1B}\\".utf8)
}
