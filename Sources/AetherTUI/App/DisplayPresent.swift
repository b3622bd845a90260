import AetherScreen
import TerminalGraphics

/// What a draw composed: the text cells, and the cells the overlays, the menu and the stills
/// (scrub preview, filmstrip) take.
struct ScreenFrame {
    var cells: CellGrid
    var overlays: [CellRect] = []
    var menu: CellRect?
    var stills: CellRect?
    /// Where the inspector's frames tab leaves room for its picture.
    var inspectorPicture: CellRect?
    /// Where the equalizer's panel leaves room for its curve's picture (pixel outputs).
    var equalizerPicture: CellRect?
}

/// Putting a composed frame on the terminal, and the erases that keep the terminal what
/// ncurses believes it is.
extension Display {
    /// `frame` handed to the compositor, which writes only the cells that changed; the mask
    /// changes before ncurses writes (no frame may paint over a new overlay, and cells an
    /// overlay leaves are repainted by the next frame). `pictures`: where pictures are now (the
    /// video, the music view's cover), erased under a new overlay; `stillRects`: the cells the
    /// stills take now; `scene`: whether the output must get the scene even with the overlays
    /// unchanged (a still may be new in place); `title`: the terminal's title, sent in order.
    func present(_ frame: ScreenFrame, pictures: [CellRect], stillRects: [CellRect], paused: Bool, scene forced: Bool,
                 stills: (CellMask) -> [VideoOutput.Still], title: () -> Void) {
        screen.menuRect = frame.menu
        terminal.withScreen {
            let written = screen.compositor.present(frame.cells, palette: palette)
            eraseStillLeftovers(now: stillRects)
            let changed = frame.overlays != screen.overlayRects
            if changed {
                eraseNewlyCovered(old: screen.overlayRects, new: frame.overlays, pictures: pictures)
                screen.overlayRects = frame.overlays
            }
            // A new thumbnail can arrive for a preview that stays in place: the output gets the
            // scene whenever stills are up (it ignores a scene equal to the one it has).
            if changed || forced { updateScene(stills: stills) }
            title()
            Curses.show()
            output.drawnOver(rows: written)
            if screen.screenCleared {
                // ncurses just cleared the terminal: everything under the video is gone.
                screen.screenCleared = false
                output.repaint(full: true)
            } else if changed, paused {
                output.repaint()
            }
        }
    }

    /// Cells an overlay now covers still show video on the terminal, while ncurses believes
    /// them blank (it never drew the video) and so skips the overlay's blank cells there: the
    /// picture would show through a box's spaces. Erase them (ECH) before ncurses draws, so the
    /// terminal is what ncurses believes it is; in terminals that keep graphics per cell (xterm)
    /// the erase takes the sixel picture off those cells too. Inside `terminal.withScreen`.
    private func eraseNewlyCovered(old: [CellRect], new: [CellRect], pictures: [CellRect]) {
        let pictures = pictures.filter { !$0.isEmpty }
        guard !pictures.isEmpty else { return }
        var before = CellMask(columns: layout.columns, rows: layout.rows)
        for r in old { before.cover(r) }
        let bytes = ByteBuffer(capacity: 1024)
        for rect in new {
            for picture in pictures { bytes.appendErase(rect.intersection(picture), sparing: before) }
        }
        emitErase(bytes)
    }

    /// Sends `bytes` (erases) in order with ncurses' output, with default attributes and the
    /// cursor put back; false when there was nothing to send. Inside `terminal.withScreen`.
    @discardableResult
    private func emitErase(_ bytes: ByteBuffer) -> Bool {
        guard !bytes.isEmpty else { return false }
        terminal.emitInScreen(Escape.saveCursor + Escape.resetAttributes + bytes.bytes + Escape.restoreCursor)
        return true
    }

    /// Cells a still (preview, filmstrip, the inspector's frame) no longer covers are erased (ECH;
    /// xterm drops sixel there too) and their rows rewritten; the video repaints its own cells.
    private func eraseStillLeftovers(now current: [CellRect]) {
        defer { screen.stillRects = current }
        let old = screen.stillRects
        guard !old.isEmpty, old != current else { return }
        var keep = CellMask(columns: layout.columns, rows: layout.rows)
        for rect in current { keep.cover(rect) }
        let bytes = ByteBuffer(capacity: 1024)
        for rect in old { bytes.appendErase(rect, sparing: keep) }
        guard emitErase(bytes) else { return }
        // ncurses rewrites those rows from scratch (the chrome and text under the old stills).
        for rect in old {
            Curses.touch(rows: rect.row..<rect.endRow)
        }
        output.repaint(full: false)
    }

    /// `--title` (``TerminalTitle``), sent when it changed: `property` gives a property's text,
    /// asked only when the title is due and names one. Inside `terminal.withScreen`.
    func updateTerminalTitle(now: Double, item: Int?, property: (String) -> String?) {
        guard screen.terminalTitle.isEnabled else { return }
        if let bytes = screen.terminalTitle.update(now: now, item: item, value: property) { terminal.emitInScreen(bytes) }
    }
}
