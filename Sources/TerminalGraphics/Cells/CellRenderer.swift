import AetherBase

/// How the cell renderer names colours.
public enum CellColorMode: String, Sendable, CaseIterable {
    /// 24-bit SGR: `38;2;r;g;b` / `48;2;r;g;b`.
    case truecolor
    /// xterm 256-colour SGR `38;5;n` / `48;5;n`, nearest colour in the cube and grey ramp.
    case palette256 = "256"
}

/// Why a frame could not be rendered. Always the caller's geometry, never the terminal's data.
public enum RenderError: Error, Sendable, Equatable {
    /// The image must be `rect.width × columns` by `rect.height × rows` pixels for the cell
    /// renderer (its ``CellSymbols``' sub-cells per cell).
    case imageSizeMismatch(image: PixelSize, expected: PixelSize)
    /// The sixel encoder takes images whose height is a multiple of 6 (see ``PictureGeometry``).
    case heightNotMultipleOfSix(Int)
}

/// Paints an image as text cells: each cell two colours and a block character
/// (``CellSymbols``: `▀`, quadrants, sextants or octants) chosen by ``CellFitting`` to show its
/// sub-cell pixels with the least error.
///
/// Damage only: the renderer keeps a backing store of what the terminal shows and writes only
/// cells that changed. Unchanged cells are skipped with cursor moves; SGR is emitted only when
/// the current foreground/background differ from what the cell needs, and a two-colour cell is
/// drawn either way round (`▀` or `▄`, a pattern or its inverse) to reuse the colours already
/// set; uniform cells use a space (background) or `█` (foreground) so they need one colour.
///
/// With a ``tolerance``, a cell whose new fit is not visibly better than what the terminal
/// already shows there is left alone (temporal noise, grain and slow drift cost no bytes), and
/// a cell that must be drawn takes the colours already set where they are within the same
/// tolerance of its fit (neighbours of nearly one colour share one SGR).
///
/// Not thread-safe: one renderer per video region, used on the render thread.
public final class CellRenderer {
    /// What one `render` call did.
    public struct FrameStatistics: Sendable, Equatable {
        public var cellsDrawn = 0
        public var cellsSkipped = 0
        public var cellsMasked = 0
        /// Cells drawn (or left alone) with colours the terminal already had, within the tolerance.
        public var cellsPenReused = 0
        /// Cells that changed but by less than the tolerance (counted in ``cellsSkipped`` too).
        public var cellsTolerated = 0
        public var colorChanges = 0
        public var bytes = 0
    }

    public var colorMode: CellColorMode {
        didSet { if colorMode != oldValue { forget() } }
    }
    public var symbols: CellSymbols {
        didSet { if symbols != oldValue { forget() } }
    }
    /// A changed cell is redrawn only when that lowers its root-mean-square error per pixel
    /// (Euclidean RGB, 0–255 levels) against the new picture by more than this; 0 redraws every
    /// change. Clamped to 0…64.
    public var tolerance: Double = 0 {
        didSet { tolerance = tolerance.isFinite ? min(64, max(0, tolerance)) : 0 }
    }

    /// Sentinel for "the terminal's content here is unknown".
    private static let unknown = UInt64.max
    /// Set on a stored cell something else was drawn over (a box, a preview): the terminal no
    /// longer shows it, but what it showed is kept, to be drawn again exactly when it still fits.
    private static let obscuredBit: UInt64 = 1 << 63

    private static func obscured(_ value: UInt64) -> UInt64 { value == unknown ? unknown : value | obscuredBit }
    private var backing: [UInt64] = []
    private var backingRect = CellRect(column: 0, row: 0, width: 0, height: 0)

    public init(symbols: CellSymbols = .half, colorMode: CellColorMode = .truecolor) {
        self.symbols = symbols
        self.colorMode = colorMode
    }

    /// The next frame repaints every cell (after a screen clear, or when something else drew
    /// over the region): each as it was where that still fits (``invalidate(_:)``).
    public func invalidate() {
        for i in backing.indices { backing[i] = Self.obscured(backing[i]) }
    }

    /// Forgets what the terminal shows (another colour mode or cell set: what was stored means
    /// nothing now).
    private func forget() {
        for i in backing.indices { backing[i] = Self.unknown }
    }

    /// Marks the cells of `rect` (screen coordinates) as drawn over, for example where an overlay
    /// was: the next frame draws each again (what it showed before, where that still fits).
    public func invalidate(_ rect: CellRect) {
        let r = rect.intersection(backingRect)
        guard !r.isEmpty else { return }
        for row in r.row..<r.endRow {
            for column in r.column..<r.endColumn {
                let i = (row - backingRect.row) * backingRect.width + column - backingRect.column
                backing[i] = Self.obscured(backing[i])
            }
        }
    }

    /// Marks the cells `mask` covers (screen coordinates) as drawn over: an overlay that came and
    /// went between two frames was never in a frame's mask, yet ncurses wrote over those cells.
    public func invalidate(_ mask: CellMask) {
        let r = backingRect
        guard !r.isEmpty else { return }
        for row in r.row..<r.endRow where mask.anyCovered(row: row, column: r.column, count: r.width) {
            for column in r.column..<r.endColumn where mask.isCovered(column: column, row: row) {
                let i = (row - r.row) * r.width + column - r.column
                backing[i] = Self.obscured(backing[i])
            }
        }
    }

    /// The picture size `rect` needs in this renderer's mode.
    public func pictureSize(for rect: CellRect) -> PixelSize {
        PixelSize(width: rect.width * symbols.columns, height: rect.height * symbols.rows)
    }

    /// Appends the bytes that bring the terminal's `rect` to `image` onto `output`.
    ///
    /// - Parameters:
    ///   - image: exactly ``pictureSize(for:)`` pixels (scaled by the caller).
    ///   - rect: where to paint, in screen cells.
    ///   - mask: cells covered by overlays (screen coordinates); they are not touched.
    /// - Returns: what was drawn and skipped.
    @discardableResult
    public func render(_ image: PixelImage, into rect: CellRect, mask: CellMask? = nil,
                       output: ByteBuffer) throws(RenderError) -> FrameStatistics {
        let expected = pictureSize(for: rect)
        guard image.width == expected.width, image.height == expected.height else {
            throw .imageSizeMismatch(image: image.size, expected: expected)
        }
        if rect != backingRect || backing.count != rect.cellCount {
            backingRect = rect
            backing = Array(repeating: Self.unknown, count: rect.cellCount)
        }
        let startCount = output.count
        // Worst case per cell: a CUP (20) + both colours (2 + 2 * 17 + 1) + a glyph (4), plus slack.
        let maxBytes = rect.cellCount * 64 + 64
        var stats = FrameStatistics()
        let mode = colorMode, symbols = symbols
        let n = symbols.subcellCount, full = symbols.fullPattern
        // Squared RMS tolerance over the cell's pixels, in squared-level units.
        let toleranceBudget = Int((tolerance * tolerance * Double(n)).rounded())
        let glyphs = symbols.glyphs

        image.withUnsafeBytes { pixels in
            // PixelImage guarantees a non-empty buffer; an empty one just draws nothing.
            guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            backing.withUnsafeMutableBufferPointer { store in
                glyphs.withUnsafeBufferPointer { glyphs in
                    output.write(maxBytes: maxBytes) { w in
                        var painter = Painter(mode: mode, glyphs: glyphs, full: full)
                        let bpp = image.format.bytesPerPixel
                        let subColumns = symbols.columns, subRows = symbols.rows
                        for y in 0..<rect.height {
                            let screenRow = rect.row + y
                            let rowBase = base + y * subRows * image.stride
                            let rowMasked = mask?.anyCovered(row: screenRow, column: rect.column, count: rect.width) ?? false
                            var cursorColumn = -1   // unknown at the start of every row
                            for x in 0..<rect.width {
                                let screenColumn = rect.column + x
                                let cellIndex = y * rect.width + x
                                if rowMasked, let mask, mask.isCovered(column: screenColumn, row: screenRow) {
                                    store[cellIndex] = Self.obscured(store[cellIndex])
                                    stats.cellsMasked += 1
                                    continue
                                }
                                // The cell's pixels in sub-cell order.
                                var p = CellFitting.Pixels()
                                let cellBase = rowBase + x * subColumns * bpp
                                for sub in 0..<n {
                                    let o = (sub / subColumns) * image.stride + (sub % subColumns) * bpp
                                    p[0, sub] = Int(cellBase[o])
                                    p[1, sub] = Int(cellBase[o + 1])
                                    p[2, sub] = Int(cellBase[o + 2])
                                }
                                let fit = CellFitting.fit(p, count: n)
                                var cell = FittedCell.canonical(pattern: fit.pattern, first: painter.key(fit.first),
                                                                second: painter.key(fit.second), full: full)
                                var packed = cell.packed
                                var shown = store[cellIndex]
                                // A cell something was drawn over: what it showed before is drawn
                                // again where the tolerance would have kept it (a box closing over
                                // a still picture leaves exactly the cells that were there).
                                let wasObscured = shown != Self.unknown && shown & Self.obscuredBit != 0
                                if wasObscured { shown &= ~Self.obscuredBit }
                                if shown == packed, !wasObscured {
                                    stats.cellsSkipped += 1
                                    continue
                                }
                                if toleranceBudget > 0, shown != packed {
                                    if shown != Self.unknown,
                                       painter.error(FittedCell(packed: shown), p, n) - painter.error(cell, p, n) <= toleranceBudget {
                                        if !wasObscured {
                                            stats.cellsSkipped += 1
                                            stats.cellsTolerated += 1
                                            continue
                                        }
                                        cell = FittedCell(packed: shown)
                                        packed = shown
                                    } else if let near = painter.reusingPen(cell, n, budget: toleranceBudget) {
                                        // Within the same tolerance, the colours the terminal already
                                        // has (no SGR, or half of one) instead of the exact fit.
                                        cell = near
                                        packed = near.packed
                                        stats.cellsPenReused += 1
                                        if shown == packed, !wasObscured {
                                            stats.cellsSkipped += 1
                                            continue
                                        }
                                    }
                                }
                                store[cellIndex] = packed
                                stats.cellsDrawn += 1
                                if cursorColumn < 0 || cursorColumn > x {
                                    Escape.writeCursorPosition(&w, column: screenColumn, row: screenRow)
                                } else if cursorColumn < x {
                                    Escape.writeCursorForward(&w, x - cursorColumn)
                                }
                                stats.colorChanges += painter.paint(&w, cell)
                                cursorColumn = x + 1
                            }
                        }
                        if painter.touchedAttributes {
                            w.bytes(Escape.esc, UInt8(ascii: "["), UInt8(ascii: "0"))
                            w.byte(UInt8(ascii: "m"))
                        }
                    }
                }
            }
        }
        stats.bytes = output.count - startCount
        return stats
    }
}

/// Colour keys and SGR emission for one frame; tracks the terminal's current colours.
private struct Painter {
    let mode: CellColorMode
    let glyphs: UnsafeBufferPointer<CellSymbols.PackedGlyph>
    let full: Int
    var currentFG: UInt32 = .max
    var currentBG: UInt32 = .max
    var touchedAttributes = false
    /// `;0` … `;255`, read once per frame rather than through the global accessor per cell.
    let lut = DecimalTable.semicolonEntries

    init(mode: CellColorMode, glyphs: UnsafeBufferPointer<CellSymbols.PackedGlyph>, full: Int) {
        self.mode = mode
        self.glyphs = glyphs
        self.full = full
    }

    /// The cell colour key for packed RGB: itself in truecolor, the palette index in 256-colour mode.
    @inline(__always) func key(_ rgb: UInt32) -> UInt32 {
        switch mode {
        case .truecolor: rgb
        case .palette256: UInt32(XtermPalette.nearestIndex(r: UInt8(truncatingIfNeeded: rgb >> 16),
                                                          g: UInt8(truncatingIfNeeded: rgb >> 8),
                                                          b: UInt8(truncatingIfNeeded: rgb)))
        }
    }

    @inline(__always) func rgb(_ key: UInt32) -> (Int, Int, Int) {
        switch mode {
        case .truecolor: return (Int(key >> 16 & 0xFF), Int(key >> 8 & 0xFF), Int(key & 0xFF))
        case .palette256:
            let c = XtermPalette.rgb(index: Int(key & 0xFF))
            return (Int(c.r), Int(c.g), Int(c.b))
        }
    }

    /// Squared error of showing `cell` for pixels `p`.
    @inline(__always) func error(_ cell: FittedCell, _ p: CellFitting.Pixels, _ n: Int) -> Int {
        let a = rgb(cell.first), b = rgb(cell.second)
        var e = 0
        for i in 0..<n {
            let c = cell.pattern & (1 << i) != 0 ? a : b
            let dr = p[0, i] - c.0, dg = p[1, i] - c.1, db = p[2, i] - c.2
            e += dr * dr + dg * dg + db * db
        }
        return e
    }

    /// `cell` drawn with one or both of the current pen colours instead of its own, when that
    /// adds at most `budget` squared error; both pens (no SGR) before one (half an SGR); nil
    /// when neither fits or the pens are unknown. 24-bit colour only (a palette index is a
    /// coarse step already).
    ///
    /// The pattern stays; each of the fit's colours is the mean of its sub-cells, so showing
    /// colour P for the k sub-cells of mean A adds k·|A−P|² to the error: six distances a cell,
    /// not a pass over its pixels.
    @inline(__always) func reusingPen(_ cell: FittedCell, _ n: Int, budget: Int) -> FittedCell? {
        guard mode == .truecolor, currentFG != .max, currentBG != .max else { return nil }
        let uniform = cell.pattern == full
        // Nothing to save when the cell's own colours are set already (either way round).
        if uniform ? (cell.first == currentBG || cell.first == currentFG)
                   : (cell.first == currentFG && cell.second == currentBG) || (cell.first == currentBG && cell.second == currentFG) {
            return nil
        }
        let countA = uniform ? n : cell.pattern.nonzeroBitCount, countB = n - countA
        func distance(_ x: UInt32, _ y: UInt32) -> Int {
            let dr = Int(x >> 16 & 0xFF) - Int(y >> 16 & 0xFF), dg = Int(x >> 8 & 0xFF) - Int(y >> 8 & 0xFF)
            let db = Int(x & 0xFF) - Int(y & 0xFF)
            return dr * dr + dg * dg + db * db
        }
        let aFG = countA * distance(cell.first, currentFG), aBG = countA * distance(cell.first, currentBG)
        let bFG = countB == 0 ? 0 : countB * distance(cell.second, currentFG)
        let bBG = countB == 0 ? 0 : countB * distance(cell.second, currentBG)
        func made(_ a: UInt32, _ b: UInt32) -> FittedCell {
            uniform ? FittedCell(pattern: full, first: a, second: a) : FittedCell.canonical(pattern: cell.pattern, first: a, second: b, full: full)
        }
        // Both pens: A in the foreground and B in the background, or the other way round.
        if uniform {
            if min(aFG, aBG) <= budget { return made(aFG <= aBG ? currentFG : currentBG, 0) }
            return nil
        }
        let straight = aFG + bBG, crossed = aBG + bFG
        if min(straight, crossed) <= budget {
            return straight <= crossed ? made(currentFG, currentBG) : made(currentBG, currentFG)
        }
        // One pen: the one colour of the four pairings that adds least.
        let one = min(aFG, aBG, bFG, bBG)
        guard one <= budget else { return nil }
        if one == aFG { return made(currentFG, cell.second) }
        if one == aBG { return made(currentBG, cell.second) }
        if one == bFG { return made(cell.first, currentFG) }
        return made(cell.first, currentBG)
    }

    /// Writes the cell's glyph, preceded by the SGR it needs; returns 1 if SGR was written.
    @inline(__always) mutating func paint(_ w: inout ByteWriter, _ cell: FittedCell) -> Int {
        if cell.pattern == full {
            // A uniform cell needs one colour: a space in the background or a full block.
            let c = cell.first
            if currentBG == c {
                w.byte(0x20)
                return 0
            }
            if currentFG == c {
                glyph(&w, full)
                return 0
            }
            sgr(&w, fg: nil, bg: c)
            w.byte(0x20)
            return 1
        }
        // Drawn as is (first colour in the foreground) or inverted, whichever keeps more of the
        // colours already set; as is on a tie.
        let asIs = (currentFG != cell.first ? 1 : 0) + (currentBG != cell.second ? 1 : 0)
        let inverted = (currentFG != cell.second ? 1 : 0) + (currentBG != cell.first ? 1 : 0)
        let (fg, bg, pattern) = inverted < asIs ? (cell.second, cell.first, ~cell.pattern & full)
                                                : (cell.first, cell.second, cell.pattern)
        let needFG = currentFG != fg, needBG = currentBG != bg
        var changed = 0
        if needFG || needBG {
            sgr(&w, fg: needFG ? fg : nil, bg: needBG ? bg : nil)
            changed = 1
        }
        glyph(&w, pattern)
        return changed
    }

    @inline(__always) private func glyph(_ w: inout ByteWriter, _ pattern: Int) {
        let g = glyphs[pattern]
        w.packed(g.bytes, length: g.length)
    }

    @inline(__always) private mutating func sgr(_ w: inout ByteWriter, fg: UInt32?, bg: UInt32?) {
        touchedAttributes = true
        w.bytes(Escape.esc, UInt8(ascii: "["))
        if let fg {
            colour(&w, fg, selector: UInt8(ascii: "3"))
            currentFG = fg
        }
        if let bg {
            if fg != nil { w.byte(UInt8(ascii: ";")) }
            colour(&w, bg, selector: UInt8(ascii: "4"))
            currentBG = bg
        }
        w.byte(UInt8(ascii: "m"))
    }

    /// `38;2;r;g;b` / `48;5;n` from the `;NNN` LUT (no number formatting per pixel).
    @inline(__always) private func colour(_ w: inout ByteWriter, _ key: UInt32, selector: UInt8) {
        switch mode {
        case .truecolor:
            w.bytes(selector, UInt8(ascii: "8"), UInt8(ascii: ";"))
            w.byte(UInt8(ascii: "2"))
            let r = lut[Int(key >> 16 & 0xFF)], g = lut[Int(key >> 8 & 0xFF)], b = lut[Int(key & 0xFF)]
            w.packed(r.digits, length: r.length)
            w.packed(g.digits, length: g.length)
            w.packed(b.digits, length: b.length)
        case .palette256:
            w.bytes(selector, UInt8(ascii: "8"), UInt8(ascii: ";"))
            w.byte(UInt8(ascii: "5"))
            let n = lut[Int(key & 0xFF)]
            w.packed(n.digits, length: n.length)
        }
    }
}
