import AetherBase

/// `--vo=kitty`: kitty's graphics protocol (kitty, WezTerm, ghostty, Konsole) through
/// ``KittyEncoder``: raw RGB frames, one image replaced in place, stretched by the terminal over
/// the placement's cells. Kitty pictures are drawn above text, so cells an overlay covers are
/// transparent (RGBA, alpha 0) and two text rows stay free under the picture for subtitles.
///
/// Locally (``KittySharedMemoryUse``) frames go through POSIX shared memory (`t=s`): only
/// the object's name passes through the tty.
///
/// Inside tmux every sequence goes to the outer terminal wrapped for passthrough, the cursor
/// moved to the picture inside the wrap (tmux writes passthrough at once, wherever the outer
/// cursor is); a bare kitty sequence would become the pane's title.
///
/// With ``placeholders`` (inside tmux, where the outer terminal shows them: ``KittyDriver/placeholders(for:)``)
/// the picture is a virtual placement shown by ``KittyPlaceholder`` cells: only the image goes
/// through the passthrough, and the cells are text, which tmux keeps, redraws and covers with
/// overlays like any text (so the picture is not above text, and needs no transparent holes).
public final class KittyDriver: VideoDriver {
    public let name = "kitty"
    public var drawsAboveText: Bool { !placeholders }
    /// A placed image is replaced whole when its transmission ends; placeholder cells are text
    /// drawn beside it, which the bracket keeps in step.
    public var framesApplyWhole: Bool { !placeholders }
    public let showsPixels = true
    /// Placeholder cells show the picture (``KittyPlaceholder``), not a placement at the cursor.
    public let placeholders: Bool
    public var qualityRungs: [OutputGovernor.Settings] { Self.qualityRungs }
    public var logDetail: String? {
        encoder.transmission == .sharedMemory ? "shared memory" : (encoder.compresses ? "zlib over a remote link" : nil)
    }

    /// Kitty's quality ladder: the picture ×0.75, then every 2nd frame, then the picture at the
    /// floor (×0.5, ``OutputGovernor/minimumScale``) every 2nd and every 3rd frame, then
    /// half-block. Frames go before pixels: a picture never shrinks below half the cell-pixel
    /// resolution of its placement.
    public static let qualityRungs: [OutputGovernor.Settings] = [
        .init(), .init(scale: 0.75), .init(scale: 0.75, frameDivisor: 2), .init(scale: 0.5, frameDivisor: 2),
        .init(scale: 0.5, frameDivisor: 3), .init(scale: 0.5, frameDivisor: 3, fallback: true),
    ]
    private let encoder: KittyEncoder
    private let passthrough: TmuxPassthrough?
    // Per placement and mask, not per frame: the framing (tmux: the cursor move inside the wrap)
    // and the transparent rectangles.
    private var framed: Placement?
    private var framing = KittyEncoder.Framing.plain
    private var holesKey: (mask: CellMask, placement: Placement)?
    private var holes: [PixelRect] = []
    /// Every cell of the placement is covered (an overlay over the whole picture): the image
    /// was deleted, and nothing is sent until a cell shows again.
    private var hidden = false
    private var cells = PlaceholderCells()

    /// The video's image id ("Aeth"); other pictures on the screen take the ids after it.
    public static let defaultImageID = 0x4165_7468

    /// - Parameters:
    ///   - passthrough: inside tmux, how to reach the outer terminal (nil: a terminal of its own).
    ///   - compresses: deflate frames sent directly (`o=z`) where it shrinks them enough: for a
    ///     terminal over a remote link (``KittySharedMemoryUse/compresses(for:)``).
    ///   - placeholders: show the picture through ``KittyPlaceholder`` cells.
    ///   - clock: the shared-memory frames' (``KittyEncoder/clock``).
    public init(passthrough: TmuxPassthrough? = nil, imageID: Int = KittyDriver.defaultImageID,
                transmission: KittyEncoder.Transmission = .direct, compresses: Bool = false, placeholders: Bool = false,
                clock: TimeSource) {
        self.passthrough = passthrough
        self.placeholders = placeholders
        encoder = KittyEncoder(imageID: imageID, transmission: transmission, compresses: compresses, clock: clock)
        encoder.virtual = placeholders
    }

    /// Whether kitty pictures inside tmux are shown by placeholder cells: the outer terminal
    /// (XTVERSION through the passthrough) is kitty 0.28 or later (where virtual placements
    /// began) or ghostty. Any other kitty-graphics terminal behind tmux (WezTerm, Konsole, an
    /// older kitty) gets placements at the cursor through the passthrough, as before.
    public static func placeholders(for caps: TerminalCapabilities) -> Bool {
        guard caps.tmux.allowsPassthrough, let name = caps.tmux.outerVersion else { return false }
        if name.lowercased().hasPrefix("ghostty") { return true }
        guard name.hasPrefix("kitty("), name.hasSuffix(")") else { return false }
        let version = name.dropFirst(6).dropLast().split(separator: ".").prefix(2).map { Int($0.prefix(4)) ?? -1 }
        guard version.count == 2 else { return false }
        return version[0] > 0 || version[1] >= 28
    }

    /// How frames reach the terminal now (shared memory may have fallen back to direct).
    public var transmission: KittyEncoder.Transmission { encoder.transmission }

    /// The image id this driver's pictures have.
    public var imageID: Int { encoder.imageID }

    public func placement(for area: CellRect, displayAspect: Double, geometry: TerminalGeometry, scale: Double) -> Placement {
        PictureGeometry.pixelPlacement(area: area, displayAspect: displayAspect, geometry: geometry,
                                       reservedRows: rowsBelowPicture, scale: scale, heightMultiple: 1,
                                       cellsFollowPicture: false)
    }

    public func render(_ image: PixelImage, placement: Placement, mask: CellMask,
                       into output: ByteBuffer) throws(RenderError) -> RenderReport {
        if placeholders { return renderPlaceholders(image, placement: placement, mask: mask, into: output) }
        let rect = placement.rect
        if mask.coversAll(rect) {
            // A wholly transparent image would be sent for nothing: take the picture down once.
            guard !hidden else { return RenderReport(unchanged: true) }
            let mark = output.count
            teardown(into: output)
            hidden = true
            return RenderReport(bytes: output.count - mark)
        }
        hidden = false
        if framed != placement {
            // A new place: the same pixels must be sent again (the image moves with its placement).
            encoder.invalidate()
            framed = placement
            framing = passthrough.map { KittyEncoder.Framing.tmux($0, column: rect.column, row: rect.row) } ?? .plain
        }
        if holesKey?.mask != mask || holesKey?.placement != placement {
            holes = Self.transparentRects(mask: mask, placement: placement)
            holesKey = (mask, placement)
        }
        let mark = output.count
        if passthrough == nil { output.append(Escape.cursorPosition(column: rect.column, row: rect.row)) }
        let report = encoder.encode(image, columns: rect.width, rows: rect.height, transparent: holes,
                                    framing: framing, into: output)
        if report.outcome == .identical {
            output.truncate(to: mark)
            return RenderReport(unchanged: true)
        }
        return RenderReport(bytes: output.count - mark, note: report.note)
    }

    public func invalidate() {
        encoder.invalidate()
        cells.forget()
    }

    public func invalidate(cells mask: CellMask) {
        guard placeholders else { return }
        cells.redo(mask)
    }

    /// Sequences that need no place on the screen (a delete, a virtual placement's image): wrapped
    /// for tmux's passthrough without a cursor move, or as they are.
    private var unplacedFraming: KittyEncoder.Framing {
        passthrough.map { _ in KittyEncoder.Framing(before: TmuxPassthrough.opening, after: TmuxPassthrough.closing, doublesEscapes: true) } ?? .plain
    }

    /// A frame as a virtual placement: the image (through the passthrough inside tmux, no cursor
    /// move: the placement has no place), then the placeholder cells where they are not on the
    /// terminal yet (a new placement or mask, an invalidation, cells an overlay left).
    private func renderPlaceholders(_ image: PixelImage, placement: Placement, mask: CellMask,
                                    into output: ByteBuffer) -> RenderReport {
        let rect = placement.rect
        let mark = output.count
        if framed != placement {
            encoder.invalidate()
            framed = placement
        }
        let report = encoder.encode(image, columns: rect.width, rows: rect.height, framing: unplacedFraming, into: output)
        let skipped = cells.write(placement: placement, mask: mask)
        if !skipped.coversAll(rect) {
            output.append(Escape.saveCursor)
            KittyPlaceholder.appendCells(imageID: encoder.imageID, rect: rect, mask: skipped, into: output)
            output.append(Escape.resetAttributes)
            output.append(Escape.restoreCursor)
        }
        let bytes = output.count - mark
        return RenderReport(bytes: bytes, unchanged: bytes == 0 && report.outcome == .identical, note: report.note)
    }

    /// Deletes the image and its data in the terminal.
    public func teardown(into output: ByteBuffer) {
        encoder.delete(framing: unplacedFraming, into: output)
        framed = nil
        cells.forget()
    }

    /// The picture's pixels under covered cells. The terminal stretches the picture over the
    /// placement's cells, so a cell is a fractional pixel rectangle; each hole is rounded out to
    /// whole pixels (a pixel any covered cell touches is transparent: an overlay is never
    /// overdrawn by a sliver of picture). One rectangle per run of covered cells in a row.
    static func transparentRects(mask: CellMask, placement: Placement) -> [PixelRect] {
        let r = placement.rect
        let w = placement.pictureSize.width, h = placement.pictureSize.height
        guard !r.isEmpty, w > 0, h > 0 else { return [] }
        var rects: [PixelRect] = []
        for row in r.row..<r.endRow where mask.anyCovered(row: row, column: r.column, count: r.width) {
            let k = row - r.row
            let y0 = k * h / r.height, y1 = ((k + 1) * h + r.height - 1) / r.height
            for run in mask.runs(row: row, in: r.column..<r.endColumn, covered: true) {
                let x0 = (run.lowerBound - r.column) * w / r.width, x1 = ((run.upperBound - r.column) * w + r.width - 1) / r.width
                let hole = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                if !hole.isEmpty { rects.append(hole) }
            }
        }
        return rects
    }
}

/// The placeholder cells on the terminal: the placement and mask they were written for (none:
/// all are written with the next frame), and cells something else drew on since.
struct PlaceholderCells {
    private var written: (placement: Placement, mask: CellMask)?
    private var toRedo: CellMask?

    /// Nothing is known to be on the terminal.
    mutating func forget() { written = nil }

    /// Something else drew on the cells `mask` covers: they are written again.
    mutating func redo(_ mask: CellMask) {
        if toRedo == nil { toRedo = mask } else { toRedo?.cover(mask) }
    }

    /// The cells not to write in a frame at `placement` with `mask` covered: those `mask` covers
    /// and, at the placement they were last written for, those written then that nothing drew on
    /// since. The placement and mask are remembered as written.
    mutating func write(placement: Placement, mask: CellMask) -> CellMask {
        var skipped = mask
        if let written, written.placement == placement {
            // Only cells that were covered and are not now (still covered ones stay skipped:
            // `skipped` starts as `mask`), or that something else drew on.
            var redo = written.mask
            if let toRedo { redo.cover(toRedo) }
            let rect = placement.rect
            for row in rect.row..<rect.endRow {
                for column in rect.column..<rect.endColumn where !redo.isCovered(column: column, row: row) {
                    skipped.cover(CellRect(column: column, row: row, width: 1, height: 1))
                }
            }
        }
        toRedo = nil
        written = (placement, mask)
        return skipped
    }
}

/// `--vo-kitty-use-shm` (mpv's name): whether kitty frames go through POSIX shared memory.
public enum KittySharedMemoryUse: String, Sendable, Equatable, CaseIterable {
    /// Where the terminal is on this machine (not over SSH, not behind screen) and answered the
    /// probe's `t=s` query with `OK` (inside tmux: the outer terminal, through the passthrough).
    case auto
    /// Always (a failed `shm_open` still falls back to direct, with a line in the log).
    case yes
    /// Never: base64 through the tty.
    case no

    /// The transmission for a terminal with `caps`.
    public func transmission(for caps: TerminalCapabilities) -> KittyEncoder.Transmission {
        switch self {
        case .yes: .sharedMemory
        case .no: .direct
        case .auto: caps.kitty.sharedMemory && !caps.remote ? .sharedMemory : .direct
        }
    }

    /// zlib's rule: frames sent directly are deflated (`o=z`, where that makes them at most
    /// 3/4 of their size) when the terminal is over SSH, where the link, not the CPU, is what a
    /// frame waits for. Locally never: shared memory sends no pixels through the tty, and a
    /// pseudo-terminal takes raw base64 faster than zlib makes it smaller (level 1 costs 40–60 ms
    /// for a grainy 1280×720 frame, 1–1.5 cores at 24 fps).
    public static func compresses(for caps: TerminalCapabilities) -> Bool { caps.remote }
}
