import AetherEngine
import CTerminal
import Foundation
import Synchronization
import TerminalGraphics

/// Paints video frames into the video rectangle. Runs on the engine's present thread; every
/// write to the terminal (ours and ncurses') happens under `tty`, so escape sequences never
/// interleave. Each frame is bracketed by DECSC/DECRC (ncurses' idea of the cursor and
/// attributes stays true) and by synchronized update where the terminal has it.
final class VideoPresenter: @unchecked Sendable {  // mutable state is only touched under `tty`
    struct Geometry {
        var rect: CellRect
        var renderSize: TerminalGraphics.PixelSize
        var renderer: Renderer
        var mask: CellMask
    }

    let tty: NSLock
    private let writer: OutputWriter
    private let halfBlock: HalfBlockRenderer
    private let sixel: SixelEncoder
    private var geometry: Geometry?
    private var lastFrame: VideoFrame?
    /// Bitmap subtitle cues to blend at a pts (set by the UI; called under `tty`).
    var bitmapCues: (@Sendable (Double) -> [SubtitleBitmap])?
    /// Re-emits ncurses overlays after a sixel image covered them (called under `tty`).
    var redrawOverlays: (() -> Void)?
    private(set) var framesPainted = 0
    private(set) var bytesWritten = 0
    /// Seconds spent encoding pictures for the terminal and writing them, over `framesPainted`.
    private(set) var renderSeconds = 0.0
    private(set) var writeSeconds = 0.0

    init(tty: NSLock, fileDescriptor: Int32, synchronizedUpdate: Bool, halfBlockColors: HalfBlockColorMode,
         sixelOptions: SixelEncoder.Options) {
        self.tty = tty
        writer = OutputWriter(fileDescriptor: fileDescriptor, synchronizedUpdate: synchronizedUpdate)
        halfBlock = HalfBlockRenderer(colorMode: halfBlockColors)
        sixel = SixelEncoder(options: sixelOptions)
    }

    /// New layout or mask (UI thread). A changed rectangle or renderer repaints everything.
    func configure(_ g: Geometry, locked: Bool = false) {
        if locked { apply(g) } else { tty.withLock { apply(g) } }
    }

    private func apply(_ g: Geometry) {
        if geometry?.rect != g.rect || geometry?.renderer != g.renderer || geometry?.renderSize != g.renderSize {
            halfBlock.invalidate()
            sixel.invalidate()
        } else if let old = geometry?.mask, old != g.mask {
            // Cells an overlay no longer covers must be repainted.
            for row in g.rect.row..<g.rect.endRow {
                for column in g.rect.column..<g.rect.endColumn
                where old.isCovered(column: column, row: row) && !g.mask.isCovered(column: column, row: row) {
                    halfBlock.invalidate(CellRect(column: column, row: row, width: 1, height: 1))
                }
            }
            blankNewlyCovered(old: old, new: g.mask, in: g.rect)
            sixel.invalidate()
        }
        geometry = g
    }

    /// Cells an overlay now covers still show video on the terminal, while ncurses believes
    /// them blank (it never drew the video) and so skips the overlay's blank cells there: the
    /// picture would show through a box's spaces. Blank them now, before ncurses draws, so the
    /// terminal is what ncurses believes it is. Caller holds `tty`.
    private func blankNewlyCovered(old: CellMask, new: CellMask, in rect: CellRect) {
        guard lastFrame != nil else { return }   // nothing painted yet
        writer.frame.removeAll()
        writer.frame.append(Array("\u{1B}7".utf8) + Escape.resetAttributes)
        var any = false
        for row in rect.row..<rect.endRow {
            var column = rect.column
            while column < rect.endColumn {
                guard new.isCovered(column: column, row: row), !old.isCovered(column: column, row: row) else { column += 1; continue }
                let start = column
                while column < rect.endColumn, new.isCovered(column: column, row: row), !old.isCovered(column: column, row: row) {
                    column += 1
                }
                writer.frame.append(Escape.cursorPosition(column: start, row: row))
                writer.frame.append(Array(repeating: UInt8(ascii: " "), count: column - start))
                any = true
            }
        }
        writer.frame.append(Array("\u{1B}8".utf8))
        if any, let n = try? writer.write(writer.frame) { bytesWritten += n }
        writer.frame.removeAll()
    }

    /// Repaint the last frame; the caller holds `tty`. `full` forgets what the terminal shows first.
    func repaintLocked(full: Bool = false) {
        if full {
            halfBlock.invalidate()
            sixel.invalidate()
        }
        if let lastFrame { paint(lastFrame) }
    }

    /// Forgets what the terminal shows (after ncurses cleared the screen).
    func invalidate() {
        tty.withLock {
            halfBlock.invalidate()
            sixel.invalidate()
        }
    }

    /// Present thread: paint `frame` now.
    func present(_ frame: VideoFrame) {
        // The engine's present thread writes to the terminal too: a stack overflow there must
        // still be able to restore it (once per thread; a thread-local check after that).
        aether_terminal_install_altstack()
        tty.withLock {
            lastFrame = frame
            paint(frame)
        }
    }

    /// Repaint the last frame (paused, after a relayout or when an overlay closed).
    func repaint() {
        tty.withLock {
            if let lastFrame { paint(lastFrame) }
        }
    }

    private func paint(_ frame: VideoFrame) {
        guard let g = geometry, g.renderer != .none, frame.hasPixels,
              frame.width == g.renderSize.width, frame.height == g.renderSize.height, !g.rect.isEmpty else { return }
        var pixels = frame.pixels
        if let cues = bitmapCues?(frame.pts), !cues.isEmpty {
            for cue in cues { SubtitleBlender.blend(cue, into: &pixels, width: frame.width, height: frame.height) }
        }
        guard let image = try? PixelImage(width: frame.width, height: frame.height, format: .rgb24, pixels: pixels) else { return }
        let renderStart = MonotonicClock.seconds()
        writer.beginFrame()
        writer.frame.append(Array("\u{1B}7".utf8))  // DECSC: save cursor and attributes for ncurses
        switch g.renderer {
        case .halfBlock:
            _ = try? halfBlock.render(image, into: g.rect, mask: g.mask, output: writer.frame)
        case .sixel:
            writer.frame.append(Escape.cursorPosition(column: g.rect.column, row: g.rect.row))
            let report = try? sixel.encode(image, into: writer.frame)
            if report?.outcome == .identical {
                writer.frame.removeAll()
                return
            }
        case .none:
            break
        }
        writer.frame.append(Array("\u{1B}8".utf8))  // DECRC
        let writeStart = MonotonicClock.seconds()
        renderSeconds += writeStart - renderStart
        if let n = try? writer.endFrame() { bytesWritten += n }
        writeSeconds += MonotonicClock.seconds() - writeStart
        framesPainted += 1
        if g.renderer == .sixel { redrawOverlays?() }
    }

    var statistics: OutputWriter.Statistics { tty.withLock { writer.statistics } }
    var framesPaintedCount: Int { tty.withLock { framesPainted } }
    /// (frames painted, render seconds, write seconds) so far.
    var stageTotals: (frames: Int, render: Double, write: Double) { tty.withLock { (framesPainted, renderSeconds, writeSeconds) } }
}

/// Blends premultiplied RGBA subtitle bitmaps into an RGB24 frame at their normalised position.
enum SubtitleBlender {
    static func blend(_ cue: SubtitleBitmap, into pixels: inout [UInt8], width: Int, height: Int) {
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
