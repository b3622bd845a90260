import AetherBase

/// How many picture pixels one text cell shows, and with which characters.
///
/// Every mode draws a cell as two colours (foreground and background) and a character whose
/// shape says which sub-cells take the foreground: `▀` splits a cell in two, quadrants in
/// 2×2, sextants (Unicode 13, U+1FB00–U+1FB3B) in 2×3, octants (Unicode 16, U+1CD00–U+1CDE5
/// plus the older block elements that complete the set) in 2×4. More sub-cells carry more
/// detail but need a terminal (or font) that draws the newer characters.
public enum CellSymbols: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `▀`/`▄`: 1×2 sub-cells; every terminal and font has them.
    case half
    /// `▘▝▖▗▚▞▙▛▜▟▌▐▀▄`: 2×2 sub-cells; block elements every monospace font has.
    case quadrant
    /// Sextants: 2×3 sub-cells.
    case sextant
    /// Octants: 2×4 sub-cells.
    case octant

    /// Sub-cells across and down one cell.
    public var columns: Int { self == .half ? 1 : 2 }
    public var rows: Int {
        switch self {
        case .half, .quadrant: 2
        case .sextant: 3
        case .octant: 4
        }
    }
    public var subcellCount: Int { columns * rows }
    /// All sub-cells set.
    public var fullPattern: Int { (1 << subcellCount) - 1 }

    public var description: String { rawValue }

    /// `--vo-cells` names (with a few aliases).
    public init?(option: String) {
        switch option.lowercased() {
        case "half", "halfblock", "half-block", "halfblocks": self = .half
        case "quadrant", "quadrants", "quarter": self = .quadrant
        case "sextant", "sextants": self = .sextant
        case "octant", "octants": self = .octant
        default: return nil
        }
    }

    /// The character for sub-cell `pattern` (bit `i` = sub-cell `i`, left to right, top to
    /// bottom; set bits take the foreground colour).
    public func scalar(pattern: Int) -> UInt32 {
        let p = pattern & fullPattern
        switch self {
        case .half: return [0x20, 0x2580, 0x2584, 0x2588][p]
        case .quadrant: return CellGlyphTables.quadrants[p]
        case .sextant: return CellGlyphTables.sextants[p]
        case .octant: return CellGlyphTables.octants[p]
        }
    }

    /// Each pattern's UTF-8, packed little-endian for ``ByteWriter/packed(_:length:)``.
    var glyphs: [PackedGlyph] { CellSymbols.glyphTables[self] ?? [] }

    struct PackedGlyph: Sendable {
        var bytes: UInt32
        var length: Int
    }

    private static let glyphTables: [CellSymbols: [PackedGlyph]] = {
        var tables: [CellSymbols: [PackedGlyph]] = [:]
        for symbols in CellSymbols.allCases {
            tables[symbols] = (0...symbols.fullPattern).map { p in
                let utf8 = Array(String(Character(Unicode.Scalar(symbols.scalar(pattern: p))!)).utf8)
                return PackedGlyph(bytes: DecimalTable.pack(utf8), length: utf8.count)
            }
        }
        return tables
    }()

    /// The pattern a character stands for in any mode, as a mask of a 2×12 grid per cell (the
    /// finest grid all modes' sub-cells fall on: 12 rows hold 2, 3 and 4 equal bands). Bit
    /// `row * 2 + column`. Nil for a character that is not one of the block characters.
    public static func coverage(of scalar: UInt32) -> UInt32? {
        coverageTable[scalar]
    }

    private static let coverageTable: [UInt32: UInt32] = {
        var table: [UInt32: UInt32] = [:]
        // Finest first, so a character two modes share maps to the same mask either way.
        for symbols in [CellSymbols.octant, .sextant, .quadrant, .half] {
            for p in 0...symbols.fullPattern {
                let s = symbols.scalar(pattern: p)
                if table[s] == nil { table[s] = symbols.coverage(pattern: p) }
            }
        }
        return table
    }()

    /// Pattern `p` as a 2×12 coverage mask (see ``coverage(of:)``).
    func coverage(pattern p: Int) -> UInt32 {
        var mask: UInt32 = 0
        let bandHeight = 12 / rows
        for sub in 0..<subcellCount where p & (1 << sub) != 0 {
            let c = sub % columns, r = sub / columns
            for fine in (r * bandHeight)..<((r + 1) * bandHeight) {
                if columns == 1 {
                    mask |= 0b11 << UInt32(fine * 2)
                } else {
                    mask |= 1 << UInt32(fine * 2 + c)
                }
            }
        }
        return mask
    }
}

extension CellSymbols {
    /// The finest cells the terminal draws itself (from its XTVERSION name, or `TERM_PROGRAM`
    /// when it gave none): octants in kitty ≥ 0.40, foot ≥ 1.20, WezTerm and Ghostty; sextants
    /// in older kitty (≥ 0.20) and foot (≥ 1.8); half blocks elsewhere, where the characters
    /// would depend on the font (xterm, VTE, Konsole, Alacritty) or the terminal is unknown
    /// (inside tmux the name is tmux's, not the terminal's).
    public static func preferred(for caps: TerminalCapabilities) -> CellSymbols {
        if caps.tmux.inside { return .half }
        if let version = caps.terminal.version, let symbols = preferred(terminalVersion: version) { return symbols }
        switch caps.terminal.termProgram?.lowercased() {
        case "wezterm"?, "ghostty"?: return .octant
        default: return .half
        }
    }

    /// The symbols an XTVERSION reply names (`kitty(0.40.1)`, `foot(1.20.2)`,
    /// `WezTerm 20240203-…`, `ghostty 1.1.3`), nil for a terminal not known to draw them.
    static func preferred(terminalVersion: String) -> CellSymbols? {
        let lower = terminalVersion.lowercased()
        func version(after prefix: String) -> [Int] {
            let rest = lower.dropFirst(prefix.count).prefix(32)
            return rest.split(whereSeparator: { !$0.isNumber }).prefix(3).map { Int($0.prefix(6)) ?? 0 }
        }
        func atLeast(_ v: [Int], _ major: Int, _ minor: Int) -> Bool {
            let a = v.first ?? 0, b = v.count > 1 ? v[1] : 0
            return a > major || (a == major && b >= minor)
        }
        if lower.hasPrefix("kitty") {
            let v = version(after: "kitty")
            return atLeast(v, 0, 40) ? .octant : (atLeast(v, 0, 20) ? .sextant : nil)
        }
        if lower.hasPrefix("foot") {
            let v = version(after: "foot")
            return atLeast(v, 1, 20) ? .octant : (atLeast(v, 1, 8) ? .sextant : nil)
        }
        if lower.hasPrefix("wezterm") || lower.hasPrefix("ghostty") { return .octant }
        return nil
    }
}
