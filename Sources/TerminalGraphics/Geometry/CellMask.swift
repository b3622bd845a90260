/// Screen cells the video must not paint because something else (a menu, the stats overlay,
/// a text subtitle) is drawn there. Coordinates are screen cells, 0-based.
///
/// The half-block renderer skips covered cells and forgets what it had drawn there, so when an
/// overlay goes away the cells under it are repainted on the next frame without a full repaint.
public struct CellMask: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    private var covered: [Bool]

    /// An empty mask for a screen of `columns` × `rows` cells.
    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        self.covered = Array(repeating: false, count: self.columns * self.rows)
    }

    /// Marks the cells of `rect` (clipped to the screen) as covered.
    public mutating func cover(_ rect: CellRect) {
        let r = rect.intersection(CellRect(column: 0, row: 0, width: columns, height: rows))
        guard !r.isEmpty else { return }
        for row in r.row..<r.endRow {
            for column in r.column..<r.endColumn { covered[row * columns + column] = true }
        }
    }

    /// Marks every cell `other` covers (a mask of another size: the cells both have).
    public mutating func cover(_ other: CellMask) {
        if other.columns == columns, other.rows == rows {
            for i in covered.indices where other.covered[i] { covered[i] = true }
            return
        }
        for row in 0..<min(rows, other.rows) {
            for column in 0..<min(columns, other.columns) where other.covered[row * other.columns + column] {
                covered[row * columns + column] = true
            }
        }
    }

    /// Whether no cell is covered.
    public var isEmpty: Bool { !covered.contains(true) }

    /// Clears every cell.
    public mutating func removeAll() {
        for i in covered.indices { covered[i] = false }
    }

    /// Whether the cell is covered; cells outside the mask are not.
    public func isCovered(column: Int, row: Int) -> Bool {
        guard column >= 0, row >= 0, column < columns, row < rows else { return false }
        return covered[row * columns + column]
    }

    /// Whether any cell of the row segment `[column, column + count)` is covered.
    func anyCovered(row: Int, column: Int, count: Int) -> Bool {
        guard row >= 0, row < rows else { return false }
        let c0 = max(0, column), c1 = min(columns, column + count)
        guard c0 < c1 else { return false }
        for c in c0..<c1 where covered[row * columns + c] { return true }
        return false
    }

    /// The runs of cells of `row` within `columns` that are covered (`covered`) or not, left to right.
    func runs(row: Int, in columns: Range<Int>, covered: Bool) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var column = columns.lowerBound
        while column < columns.upperBound {
            guard isCovered(column: column, row: row) == covered else { column += 1; continue }
            let first = column
            while column < columns.upperBound, isCovered(column: column, row: row) == covered { column += 1 }
            found.append(first..<column)
        }
        return found
    }

    /// Whether every cell of `rect` is covered (a picture there would show nothing); an empty
    /// rectangle is not.
    public func coversAll(_ rect: CellRect) -> Bool {
        guard !rect.isEmpty else { return false }
        for row in rect.row..<rect.endRow {
            for column in rect.column..<rect.endColumn where !isCovered(column: column, row: row) { return false }
        }
        return true
    }
}
