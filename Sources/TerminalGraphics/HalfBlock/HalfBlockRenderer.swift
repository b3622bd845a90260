/// How the half-block renderer names colours.
public enum HalfBlockColorMode: String, Sendable, CaseIterable {
    /// 24-bit SGR: `38;2;r;g;b` / `48;2;r;g;b`.
    case truecolor
    /// xterm 256-colour SGR `38;5;n` / `48;5;n`, nearest colour in the cube and grey ramp.
    case palette256 = "256"
}

/// Why a frame could not be rendered. Always the caller's geometry, never the terminal's data.
public enum RenderError: Error, Sendable, Equatable {
    /// The image must be `rect.width` × `2 * rect.height` pixels for the half-block renderer.
    case imageSizeMismatch(image: PixelSize, expected: PixelSize)
    /// The sixel encoder takes images whose height is a multiple of 6 (see ``PictureGeometry``).
    case heightNotMultipleOfSix(Int)
}

/// Paints an image as `▀` cells (foreground = upper pixel, background = lower pixel).
///
/// Damage only: the renderer keeps a backing store of what the terminal shows and writes only
/// cells whose colours changed. Unchanged cells are skipped with cursor moves; SGR is emitted
/// only when the current foreground/background differ from what the cell needs; uniform cells
/// use a space (background) or `█` (foreground) so they need one colour, not two.
///
/// Not thread-safe: one renderer per video region, used on the render thread.
public final class HalfBlockRenderer {
    /// What one `render` call did.
    public struct FrameStatistics: Sendable, Equatable {
        public var cellsDrawn = 0
        public var cellsSkipped = 0
        public var cellsMasked = 0
        public var colorChanges = 0
        public var bytes = 0
    }

    public var colorMode: HalfBlockColorMode {
        didSet { if colorMode != oldValue { invalidate() } }
    }

    /// Sentinel for "the terminal's content here is unknown".
    private static let unknown = UInt64.max
    private var backing: [UInt64] = []
    private var backingRect = CellRect(column: 0, row: 0, width: 0, height: 0)

    public init(colorMode: HalfBlockColorMode = .truecolor) {
        self.colorMode = colorMode
    }

    /// Forgets what the terminal shows: the next frame repaints every cell (after a resize,
    /// a screen clear, or when something else drew over the region).
    public func invalidate() {
        for i in backing.indices { backing[i] = Self.unknown }
    }

    /// Forgets the cells of `rect` (screen coordinates), for example where an overlay was.
    public func invalidate(_ rect: CellRect) {
        let r = rect.intersection(backingRect)
        guard !r.isEmpty else { return }
        for row in r.row..<r.endRow {
            for column in r.column..<r.endColumn {
                backing[(row - backingRect.row) * backingRect.width + column - backingRect.column] = Self.unknown
            }
        }
    }

    /// Appends the bytes that bring the terminal's `rect` to `image` onto `output`.
    ///
    /// - Parameters:
    ///   - image: exactly `rect.width` × `2 * rect.height` pixels (scaled by the caller).
    ///   - rect: where to paint, in screen cells.
    ///   - mask: cells covered by overlays (screen coordinates); they are not touched.
    /// - Returns: what was drawn and skipped.
    @discardableResult
    public func render(_ image: PixelImage, into rect: CellRect, mask: CellMask? = nil,
                       output: ByteBuffer) throws(RenderError) -> FrameStatistics {
        let expected = PixelSize(width: rect.width, height: rect.height * 2)
        guard image.width == expected.width, image.height == expected.height else {
            throw .imageSizeMismatch(image: image.size, expected: expected)
        }
        if rect != backingRect || backing.count != rect.cellCount {
            backingRect = rect
            backing = Array(repeating: Self.unknown, count: rect.cellCount)
        }
        let startCount = output.count
        // Worst case per cell: a CUP (20) + both colours (2 + 2 * 17 + 1) + a glyph (3), plus slack.
        let maxBytes = rect.cellCount * 64 + 64
        var stats = FrameStatistics()
        let mode = colorMode
        image.withUnsafeBytes { pixels in
            // PixelImage guarantees a non-empty buffer; an empty one just draws nothing.
            guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            backing.withUnsafeMutableBufferPointer { store in
                output.write(maxBytes: maxBytes) { w in
                    var painter = Painter(mode: mode)
                    let bpp = image.format.bytesPerPixel
                    for y in 0..<rect.height {
                        let screenRow = rect.row + y
                        let top = base + 2 * y * image.stride
                        let bottom = top + image.stride
                        let rowMasked = mask?.anyCovered(row: screenRow, column: rect.column, count: rect.width) ?? false
                        var cursorColumn = -1   // unknown at the start of every row
                        for x in 0..<rect.width {
                            let screenColumn = rect.column + x
                            let cellIndex = y * rect.width + x
                            if rowMasked, let mask, mask.isCovered(column: screenColumn, row: screenRow) {
                                store[cellIndex] = Self.unknown
                                stats.cellsMasked += 1
                                continue
                            }
                            let o = x * bpp
                            let fg = painter.key(top[o], top[o + 1], top[o + 2])
                            let bg = painter.key(bottom[o], bottom[o + 1], bottom[o + 2])
                            let cell = UInt64(fg) << 32 | UInt64(bg)
                            if store[cellIndex] == cell {
                                stats.cellsSkipped += 1
                                continue
                            }
                            store[cellIndex] = cell
                            stats.cellsDrawn += 1
                            if cursorColumn < 0 || cursorColumn > x {
                                Escape.writeCursorPosition(&w, column: screenColumn, row: screenRow)
                            } else if cursorColumn < x {
                                Escape.writeCursorForward(&w, x - cursorColumn)
                            }
                            stats.colorChanges += painter.paint(&w, fg: fg, bg: bg)
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
        stats.bytes = output.count - startCount
        return stats
    }
}

/// Colour keys and SGR emission for one frame; tracks the terminal's current colours.
private struct Painter {
    let mode: HalfBlockColorMode
    var currentFG: UInt32 = .max
    var currentBG: UInt32 = .max
    var touchedAttributes = false
    /// `;0` … `;255`, read once per frame rather than through the global accessor per cell.
    let lut = DecimalTable.semicolonEntries

    init(mode: HalfBlockColorMode) { self.mode = mode }

    /// The cell colour key: packed RGB in truecolor, the palette index in 256-colour mode.
    @inline(__always) func key(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        switch mode {
        case .truecolor: UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        case .palette256: UInt32(XtermPalette.nearestIndex(r: r, g: g, b: b))
        }
    }

    /// Writes the cell's glyph, preceded by the SGR it needs; returns 1 if SGR was written.
    @inline(__always) mutating func paint(_ w: inout ByteWriter, fg: UInt32, bg: UInt32) -> Int {
        if fg == bg {
            // A uniform cell needs one colour: a space in the background or a full block.
            if currentBG == fg {
                w.byte(0x20)
                return 0
            }
            if currentFG == fg {
                w.bytes(0xE2, 0x96, 0x88)   // █
                return 0
            }
            sgr(&w, fg: nil, bg: bg)
            w.byte(0x20)
            return 1
        }
        let needFG = currentFG != fg, needBG = currentBG != bg
        var changed = 0
        if needFG || needBG {
            sgr(&w, fg: needFG ? fg : nil, bg: needBG ? bg : nil)
            changed = 1
        }
        w.bytes(0xE2, 0x96, 0x80)   // ▀
        return changed
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
