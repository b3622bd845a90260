import TerminalGraphics

/// Where stills go (the scrub preview, the filmstrip, the inspector's frame, the music view's
/// cover): a layout and the driver that places pictures on it. A value, made for each use
/// (``Display/stillLayout``).
struct StillLayout {
    let layout: Layout
    let driver: any VideoDriver

    /// A still `width` columns wide from `column`, standing on the progress bar, with a label
    /// row above it: as many rows as the picture's aspect needs (plus the rows a pixel driver
    /// keeps free under its pictures). Nil when it does not fit.
    func place(_ picture: VideoOutput.StillPicture, width: Int, column: Int,
                        maxRows: Int = .max) -> (label: CellRect, placement: Placement)? {
        guard width > 0, column >= 0, column + width <= layout.columns, picture.width > 0, picture.height > 0 else { return nil }
        let aspect = Double(picture.width) / Double(picture.height)
        let geometry = layout.geometry
        let cell = geometry.cellSize
        // Rows the picture needs at this width, plus the rows a pixel driver keeps under it.
        let pictureRows: Int
        if driver.drawsAboveText {
            pictureRows = Int((Double(width * cell.width) / aspect / Double(cell.height)).rounded(.up)) + driver.rowsBelowPicture
        } else {
            pictureRows = Int((Double(width) / aspect / 2).rounded(.up))
        }
        let bottom = layout.rows - 2   // the progress bar
        let available = bottom - Layout.chromeTop - 1
        let rows = min(pictureRows, available, maxRows)
        guard rows >= 3 else { return nil }
        let area = CellRect(column: column, row: bottom - rows, width: width, height: rows)
        let placement = driver.placement(for: area, displayAspect: aspect, geometry: geometry, scale: 1)
        guard !placement.isEmpty else { return nil }
        return (CellRect(column: column, row: bottom - rows - 1, width: width, height: 1), placement)
    }

    /// Where the scrub preview goes: above the progress bar, centred on the marker, a third of
    /// the screen wide (16…48 columns), as tall as the picture's aspect needs plus a label row.
    /// Nil when the screen is too small.
    func preview(_ picture: VideoOutput.StillPicture, marker column: Int) -> (label: CellRect, placement: Placement)? {
        let width = min(48, max(16, layout.columns / 3))
        return place(picture, width: width, column: min(layout.columns - width, max(0, column - width / 2)))
    }

    /// A picture in `rect` at its own aspect, as the driver places it (nil: it does not fit).
    func fit(_ picture: VideoOutput.StillPicture, in rect: CellRect) -> Placement? {
        guard picture.width > 0, picture.height > 0 else { return nil }
        let placement = driver.placement(for: rect, displayAspect: Double(picture.width) / Double(picture.height),
                                         geometry: layout.geometry, scale: 1)
        return placement.isEmpty ? nil : placement
    }

    /// Where each thumbnail goes: a centred row standing on the progress bar, all as tall as
    /// the tallest needs (at most a third of the screen).
    func filmstrip(_ strip: Filmstrip) -> [(slot: Int, label: CellRect, placement: Placement)] {
        let maxRows = max(3, (layout.rows - 3) / 3)
        return strip.times.indices.compactMap { slot in
            guard let picture = strip.pictures[slot],
                  let spot = place(picture, width: strip.width, column: strip.column(of: slot, screenColumns: layout.columns),
                                            maxRows: maxRows)
            else { return nil }
            return (slot, spot.label, spot.placement)
        }
    }

    /// The stills the output draws for the filmstrip.
    func filmstripStills(_ strip: Filmstrip) -> [VideoOutput.Still] {
        filmstrip(strip).compactMap { item in
            guard let picture = strip.pictures[item.slot], let stamp = strip.stamps[item.slot] else { return nil }
            return VideoOutput.Still(placement: item.placement, stamp: stamp, picture: picture)
        }
    }
}
