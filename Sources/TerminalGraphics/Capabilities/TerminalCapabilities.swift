/// What the terminal can do, as probed (and, where it did not answer, as its environment hints).
public struct TerminalCapabilities: Sendable, Equatable {
    /// Where a fact came from, for `aether-tui caps`.
    public enum Source: String, Sendable, Equatable {
        case terminal = "reply"
        case environment = "env"
        case ioctl = "ioctl"
        case assumed = "default"
    }

    /// DA1 lists attribute 4.
    public var sixel = false
    /// Colour registers (XTSMGRAPHICS `Pi=1`); 256 when the terminal has sixel but does not say.
    public var sixelColorRegisters: Int?
    /// Largest sixel image (XTSMGRAPHICS `Pi=2`).
    public var sixelMaxGeometry: PixelSize?
    /// One cell in pixels, with where it came from.
    public var cellSize: CellSize?
    public var cellSizeSource: Source = .assumed
    /// The screen in cells (TIOCGWINSZ or `CSI 18 t`).
    public var screenColumns: Int?
    public var screenRows: Int?
    /// DECRQM `?2026` answered set or reset (the mode exists).
    public var synchronizedOutput = false
    /// 24-bit colour SGR.
    public var truecolor = false
    public var truecolorSource: Source = .assumed
    public var term: String?
    public var termProgram: String?
    public var inTmux = false
    /// The terminal answered the DSR sentinel within the time budget.
    public var answered = false
    /// DA1 attributes as received.
    public var deviceAttributes: [Int] = []
    /// How long the probe took.
    public var probeMilliseconds: Double = 0

    public init() {}

    /// Colour registers to use for sixel: the terminal's, else 256, never above 256.
    public var effectiveSixelColors: Int { min(256, max(2, sixelColorRegisters ?? 256)) }

    /// The largest sixel image to make: the terminal's reported limit, else (and never above)
    /// ``ReplyLimits/sixelGeometry`` on each side.
    public var effectiveSixelMaxGeometry: PixelSize {
        let ceiling = ReplyLimits.sixelGeometry.upperBound
        return PixelSize(width: min(ceiling, sixelMaxGeometry?.width ?? ceiling),
                         height: min(ceiling, sixelMaxGeometry?.height ?? ceiling))
    }

    /// Lines for `aether-tui caps`: one `name: value (source)` per line.
    public var summaryLines: [String] {
        func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
        var lines: [String] = []
        lines.append("terminal answered: \(yesNo(answered)) (\(String(format2(probeMilliseconds))) ms)")
        lines.append("TERM: \(term ?? "-")")
        lines.append("TERM_PROGRAM: \(termProgram ?? "-")")
        lines.append("tmux: \(yesNo(inTmux))")
        lines.append("device attributes (DA1): \(deviceAttributes.isEmpty ? "-" : deviceAttributes.map(String.init).joined(separator: ";"))")
        lines.append("sixel: \(yesNo(sixel))")
        lines.append("sixel colour registers: \(sixelColorRegisters.map(String.init) ?? "-")")
        lines.append("sixel max geometry: \(sixelMaxGeometry?.description ?? "-")")
        lines.append("cell size: \(cellSize?.description ?? "-") (\(cellSizeSource.rawValue))")
        if let c = screenColumns, let r = screenRows { lines.append("screen: \(c)x\(r) cells") }
        lines.append("synchronized output (?2026): \(yesNo(synchronizedOutput))")
        lines.append("truecolor: \(yesNo(truecolor)) (\(truecolorSource.rawValue))")
        return lines
    }

    private func format2(_ v: Double) -> String {
        let hundredths = Int((v * 100).rounded())
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac)"
    }
}
