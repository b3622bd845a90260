import TerminalGraphics

/// kitty's placeholder cells (``KittyPlaceholder``) read back from what a terminal (or a tmux
/// capture with `-e`) shows: which image each cell names and which of its cells it shows.
extension CellStreamDecoder {
    /// One placeholder cell: the image (foreground colour's 24 bits, the third mark's high
    /// byte) and the picture's row and column it shows.
    public struct Placeholder: Equatable, Sendable {
        public var imageID: Int
        public var row: Int
        public var column: Int

        public init(imageID: Int, row: Int, column: Int) {
            self.imageID = imageID
            self.row = row
            self.column = column
        }
    }

    /// The placeholder at a cell, nil when the cell is anything else or its marks or colour
    /// do not name one (a 24-bit foreground and at least the row and column marks).
    public func placeholder(column: Int, row: Int) -> Placeholder? {
        guard column >= 0, row >= 0, column < columns, row < rows else { return nil }
        let cell = self[column, row]
        guard cell.scalar == KittyPlaceholder.character, cell.marks.count >= 2,
              case .rgb(let r, let g, let b) = cell.fg,
              let y = KittyPlaceholder.index(of: cell.marks[0]), let x = KittyPlaceholder.index(of: cell.marks[1]) else { return nil }
        let high = cell.marks.count >= 3 ? KittyPlaceholder.index(of: cell.marks[2]) ?? 0 : 0
        return Placeholder(imageID: high << 24 | Int(r) << 16 | Int(g) << 8 | Int(b), row: y, column: x)
    }

    /// Every placeholder cell of image `imageID` on the screen, by screen cell.
    public func placeholders(of imageID: Int) -> [(column: Int, row: Int, shows: Placeholder)] {
        var found: [(column: Int, row: Int, shows: Placeholder)] = []
        for row in 0..<rows {
            for column in 0..<columns {
                if let p = placeholder(column: column, row: row), p.imageID == imageID { found.append((column, row, p)) }
            }
        }
        return found
    }

    /// Whether the placeholder cells of `imageID` cover `rect` exactly as a placement there
    /// shows it: the cell at (rect.column + x, rect.row + y) shows row y and column x, for every
    /// cell of `rect` except those in `except`, and no cell outside `rect` names the image.
    public func placeholdersCover(_ rect: CellRect, imageID: Int, except: CellMask? = nil) -> Bool {
        let found = placeholders(of: imageID)
        var expected = 0
        for row in rect.row..<rect.endRow {
            for column in rect.column..<rect.endColumn where !(except?.isCovered(column: column, row: row) ?? false) {
                expected += 1
                guard placeholder(column: column, row: row)
                        == Placeholder(imageID: imageID, row: row - rect.row, column: column - rect.column) else { return false }
            }
        }
        return found.count == expected
    }
}
