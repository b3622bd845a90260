/// The sizes a terminal may report and be believed.
///
/// Terminal replies (and `TIOCGWINSZ`, which any program on the tty can set) are input, not
/// facts: a terminal that claims 1024×1024-pixel cells would otherwise make the picture buffer
/// gigabytes large. Every reported size is checked against these ranges; a value outside its
/// range is ignored as if the terminal had not answered, and the fallback is used (for cells
/// ``CellSize/fallback`` or the next source in the probe's order; for sixel geometry no
/// reported limit, which still leaves ``sixelGeometry`` as the ceiling).
///
/// The ranges are wide enough for every real setup we know of: a 64×128 cell is a 96 pt font on
/// a 4× display, 16384 px is a 16K-wide window, and xterm, foot, mlterm, WezTerm and
/// contour report sixel limits at or below 4096.
public enum ReplyLimits {
    /// One cell's width in pixels.
    public static let cellWidth = 1...64
    /// One cell's height in pixels.
    public static let cellHeight = 1...128
    /// A window or text-area dimension in pixels (`CSI 14 t`, `TIOCGWINSZ` pixels).
    public static let windowPixels = 1...16384
    /// The screen's rows or columns (`CSI 18 t`, `TIOCGWINSZ`).
    public static let screenCells = 1...4096
    /// A side of the largest sixel image (XTSMGRAPHICS `Pi=2`); also the ceiling on any sixel
    /// image we make, whatever the terminal says.
    public static let sixelGeometry = 1...4096
    /// Sixel colour registers (XTSMGRAPHICS `Pi=1`).
    public static let colorRegisters = 2...65536
    /// The longest APC reply (kitty's `ESC _G i=31;OK ESC \`, or an error message), from ESC to
    /// ST; a longer run is not a reply and is handed back as stray input, never waited on.
    public static let apcReplyBytes = 256
    /// The longest terminal name kept from an XTVERSION reply.
    public static let terminalVersionBytes = 64
    /// The most `name=value` pairs read from one XTGETTCAP reply (we ask for two).
    public static let termcapEntries = 8
    /// The most SGR parameters read from one DECRQSS reply (ours has one colour: 0;38:2::1:2:3).
    public static let settingParameters = 32

    /// Whether `size` is a plausible cell.
    public static func accepts(_ size: CellSize) -> Bool {
        cellWidth.contains(size.width) && cellHeight.contains(size.height)
    }
}
