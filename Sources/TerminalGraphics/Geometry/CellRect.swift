/// A rectangle of terminal cells, 0-based (column 0 / row 0 is the top-left cell of the screen).
///
/// Escape sequences are 1-based; the conversion happens only in ``Escape``.
public struct CellRect: Sendable, Hashable, CustomStringConvertible {
    public var column: Int
    public var row: Int
    public var width: Int
    public var height: Int

    public init(column: Int, row: Int, width: Int, height: Int) {
        self.column = column
        self.row = row
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public var isEmpty: Bool { width == 0 || height == 0 }
    public var cellCount: Int { width * height }
    /// One past the last column.
    public var endColumn: Int { column + width }
    /// One past the last row.
    public var endRow: Int { row + height }

    public func contains(column c: Int, row r: Int) -> Bool {
        c >= column && c < endColumn && r >= row && r < endRow
    }

    /// The overlap of two rectangles (empty when they do not meet).
    public func intersection(_ other: CellRect) -> CellRect {
        let c0 = max(column, other.column), r0 = max(row, other.row)
        let c1 = min(endColumn, other.endColumn), r1 = min(endRow, other.endRow)
        return CellRect(column: c0, row: r0, width: c1 - c0, height: r1 - r0)
    }

    public var description: String { "\(width)x\(height)+\(column)+\(row)" }
}
