/// What the terminal can do, as probed (and, where it did not answer, as its environment hints),
/// by what each fact is about: ``Identity``, ``Tmux``, ``Sixel``, ``Kitty``, ``Window``, ``Probe``.
public struct TerminalCapabilities: Sendable, Equatable {
    /// Where a fact came from, for `aether-tui caps`.
    public enum Source: String, Sendable, Equatable {
        case terminal = "reply"
        case environment = "env"
        case ioctl = "ioctl"
        case assumed = "default"
    }

    public var terminal = Identity()
    public var tmux = Tmux()
    public var sixel = Sixel()
    public var kitty = Kitty()
    public var window = Window()
    public var probe = Probe()
    /// Over SSH (`SSH_CONNECTION`/`SSH_TTY`): the terminal is on another machine.
    public var remote = false
    /// DECRQM `?2026` answered set or reset (the mode exists).
    public var synchronizedOutput = false
    /// The background colour the terminal reported (OSC 11), nil when it did not answer: the
    /// chrome's theme follows whether it is light (``RGBColour/isLight``).
    public var background: RGBColour?
    /// 24-bit colour SGR: the terminal answered the probe's colour queries (``Source/terminal``:
    /// XTGETTCAP `RGB`/`Tc`, or DECRQSS showing the colour it was given kept as RGB, or a palette
    /// index for no), or names itself as a terminal that has it (XTVERSION), else the
    /// environment's hints (``Source/environment``).
    public var truecolor = false
    public var truecolorSource: Source = .assumed

    public init() {}

    /// Who the terminal says it is: its environment's names and its answers about itself.
    public struct Identity: Sendable, Equatable {
        public var term: String?
        public var termProgram: String?
        /// The terminal's own name and version (XTVERSION), e.g. `XTerm(379)`; inside tmux, tmux's.
        public var version: String?
        /// DA1 attributes as received.
        public var deviceAttributes: [Int] = []

        /// xterm itself (not a terminal inside tmux).
        public var isXterm: Bool { version?.hasPrefix("XTerm(") ?? false }

        /// Whether the name (XTVERSION) is one of the terminals known to draw 24-bit colour, for a
        /// terminal that answered no colour query (kitty, foot, WezTerm, ghostty, contour, iTerm2).
        var namesDirectColorTerminal: Bool {
            guard let version else { return false }
            return ["kitty(", "foot(", "WezTerm ", "ghostty", "contour ", "iTerm2 "].contains { version.hasPrefix($0) }
        }
    }

    /// tmux between the terminal and the player, and what the terminal outside it answered
    /// through tmux's passthrough.
    public struct Tmux: Sendable, Equatable {
        /// Inside tmux (`TMUX`).
        public var inside = false
        /// What tmux said about the pane (passthrough, where it sits on the outer terminal); nil
        /// when not in tmux or tmux did not answer.
        public var pane: TmuxPane?
        /// The outer terminal's DA1, asked through tmux's passthrough.
        public var outerDeviceAttributes: [Int] = []
        /// The outer terminal's name (XTVERSION), asked through tmux's passthrough.
        public var outerVersion: String?

        /// The cell size a tmux pane's TIOCGWINSZ says while tmux does not know its terminal's
        /// (tmux's `DEFAULT_XPIXEL` × `DEFAULT_YPIXEL`: a detached session, a client whose terminal
        /// reports no pixels, the moments before tmux learns them).
        public static let assumedCell = CellSize(width: 16, height: 32)

        /// Inside tmux with `allow-passthrough` on: graphics can reach the outer terminal, which
        /// was probed through it.
        public var allowsPassthrough: Bool { inside && (pane?.passthrough ?? false) }

        /// How pictures reach the outer terminal from inside tmux: wrapped for passthrough, placed
        /// from the pane's origin (unknown: the top-left corner). Nil outside tmux.
        public var passthrough: TmuxPassthrough? {
            guard inside else { return nil }
            return TmuxPassthrough(paneTop: pane?.top ?? 0, paneLeft: pane?.left ?? 0)
        }
    }

    /// Sixel graphics: whether the terminal has them, and its limits.
    public struct Sixel: Sendable, Equatable {
        /// DA1 lists attribute 4 (inside tmux: tmux's own, or the outer terminal's through
        /// passthrough, see ``throughTmux``).
        public var available = false
        /// Sixel comes from the terminal outside tmux (tmux itself has none): images go to it
        /// wrapped in tmux's passthrough.
        public var throughTmux = false
        /// Colour registers (XTSMGRAPHICS `Pi=1`); 256 when the terminal has sixel but does not say.
        public var colorRegisters: Int?
        /// Largest sixel image (XTSMGRAPHICS `Pi=2`).
        public var maxGeometry: PixelSize?

        /// An XTSMGRAPHICS answer (`item` 1: colour registers, 2: largest image), each number
        /// within ``ReplyLimits``; `keepingSmaller`: a second answer (tmux's own and the outer
        /// terminal's, at the probe) lowers the limit but never raises it.
        mutating func noteLimit(item: Int, values: [Int], keepingSmaller: Bool) {
            switch item {
            case 1:
                guard let n = values.first, ReplyLimits.colorRegisters.contains(n) else { return }
                colorRegisters = keepingSmaller ? min(n, colorRegisters ?? n) : n
            case 2:
                guard values.count >= 2, ReplyLimits.sixelGeometry.contains(values[0]),
                      ReplyLimits.sixelGeometry.contains(values[1]) else { return }
                let old = keepingSmaller ? maxGeometry : nil
                maxGeometry = PixelSize(width: min(values[0], old?.width ?? values[0]),
                                        height: min(values[1], old?.height ?? values[1]))
            default:
                return
            }
        }

        /// Limits the terminal answered while playing (``CapabilityProbe/outerSixelLimitsQuery``,
        /// the bytes of its XTSMGRAPHICS answers): they replace the ones held (the terminal may be
        /// another one now). True when they changed.
        public mutating func takeLimits(from bytes: [UInt8]) -> Bool {
            var parser = ReplyParser()
            let before = (colorRegisters, maxGeometry)
            for case let .graphicsAttribute(item, 0, values) in parser.feed(bytes).replies {
                noteLimit(item: item, values: values, keepingSmaller: false)
            }
            return before.0 != colorRegisters || before.1 != maxGeometry
        }

        /// Colour registers to use: the terminal's, else 256, never above 256.
        public var effectiveColors: Int { min(256, max(2, colorRegisters ?? 256)) }

        /// The largest image to make: the terminal's reported limit, else (and never above)
        /// ``ReplyLimits/sixelGeometry`` on each side.
        public var effectiveMaxGeometry: PixelSize {
            let ceiling = ReplyLimits.sixelGeometry.upperBound
            return PixelSize(width: min(ceiling, maxGeometry?.width ?? ceiling),
                             height: min(ceiling, maxGeometry?.height ?? ceiling))
        }
    }

    /// kitty's graphics protocol.
    public struct Kitty: Sendable, Equatable {
        /// The terminal answered the `a=q` query with `OK` (an error reply means no), or, when it
        /// answered nothing at all, its name suggests it (``Source/environment``).
        public var graphics = false
        public var graphicsSource: Source = .assumed
        /// Images through POSIX shared memory (`t=s`): the terminal read a 1×1 image from a shared
        /// memory object the probe made and answered `OK` (asked only where ``TerminalCapabilities/remote``
        /// is false and not in GNU screen; inside tmux the outer terminal's answer, through the passthrough).
        public var sharedMemory = false
    }

    /// The window: the screen in cells and one cell in pixels, with where that came from.
    public struct Window: Sendable, Equatable {
        /// One cell in pixels, with where it came from (see
        /// ``update(columns:rows:pixelWidth:pixelHeight:inTmux:)``).
        public var cellSize: CellSize?
        public var cellSizeSource: Source = .assumed
        /// The terminal's own answer for its cell size (`CSI 16 t`, else `CSI 14 t` ÷ cells; inside
        /// tmux the outer terminal's, through passthrough), if it gave one.
        public var cellSizeReply: CellSize?
        /// The screen in cells (TIOCGWINSZ or `CSI 18 t`).
        public var columns: Int?
        public var rows: Int?

        /// The window as TIOCGWINSZ says it now (at the probe, and again on every resize and
        /// `SIGWINCH`: a terminal's font can change with its cells, and tmux learns its terminal's
        /// pixels after it started): the screen's cells and the cell size, from the pixels where
        /// they are plausible, else the terminal's answer (``cellSizeReply``). Inside tmux a cell of
        /// ``Tmux/assumedCell`` is tmux's placeholder, so the outer terminal's answer wins over it.
        /// True when the cell size changed.
        @discardableResult
        public mutating func update(columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int, inTmux: Bool) -> Bool {
            let cells = ReplyLimits.screenCells, pixels = ReplyLimits.windowPixels
            guard cells.contains(columns), cells.contains(rows) else { return false }
            self.columns = columns
            self.rows = rows
            let before = cellSize
            var window: CellSize?
            if pixels.contains(pixelWidth), pixels.contains(pixelHeight),
               case let size = CellSize(width: pixelWidth / columns, height: pixelHeight / rows), size.isValid {
                window = size
            }
            if let window, !(inTmux && window == Tmux.assumedCell && cellSizeReply != nil) {
                cellSize = window
                cellSizeSource = .ioctl
            } else if let reply = cellSizeReply {
                cellSize = reply
                cellSizeSource = .terminal
            }
            return cellSize != before
        }
    }

    /// The probe itself.
    public struct Probe: Sendable, Equatable {
        /// The terminal answered the DSR sentinel within the time budget.
        public var answered = false
        /// How long the probe took.
        public var milliseconds: Double = 0

        /// ``milliseconds`` to two decimals, as `aether-tui caps` says it.
        var millisecondsText: String {
            let hundredths = Int((milliseconds * 100).rounded())
            let frac = hundredths % 100
            return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac)"
        }
    }

    /// The name of the terminal that draws sixel images: the outer terminal's when they go
    /// through tmux's passthrough, else the terminal's own (XTVERSION).
    public var sixelTerminalVersion: String? { sixel.throughTmux ? tmux.outerVersion : terminal.version }

    /// The terminal that draws sixel images composes them: it keeps what it shows (text, an
    /// earlier image) under a new image's unset pixels (`P2=1`). Known of xterm (`XTerm(`) and
    /// foot (`foot(`) by their XTVERSION name (the outer terminal's through tmux); not of
    /// mlterm 3.9, which draws unset pixels as background and so blanks text under them (it
    /// answers no XTVERSION and sets no `TERM_PROGRAM`), nor of any terminal that does not say
    /// its name: those get whole pictures and pictures that never cover an overlay, which are
    /// right everywhere.
    public var sixelComposes: Bool {
        guard let name = sixelTerminalVersion else { return false }
        return name.hasPrefix("XTerm(") || name.hasPrefix("foot(")
    }

    /// Lines for `aether-tui caps`: one `name: value (source)` per line.
    public var summaryLines: [String] {
        func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
        var lines: [String] = []
        lines.append("terminal answered: \(yesNo(probe.answered)) (\(probe.millisecondsText) ms)")
        lines.append("TERM: \(terminal.term ?? "-")")
        lines.append("TERM_PROGRAM: \(terminal.termProgram ?? "-")")
        lines.append("terminal version (XTVERSION): \(terminal.version ?? "-")")
        lines.append("tmux: \(yesNo(tmux.inside))")
        if tmux.inside {
            if let pane = tmux.pane {
                lines.append("tmux passthrough: \(yesNo(pane.passthrough)) (pane at row \(pane.top), column \(pane.left); tmux \(pane.version ?? "-"))")
            } else {
                lines.append("tmux passthrough: no (tmux did not answer)")
            }
        }
        func attributes(_ a: [Int]) -> String { a.isEmpty ? "-" : a.map(String.init).joined(separator: ";") }
        lines.append("device attributes (DA1): \(attributes(terminal.deviceAttributes))")
        if tmux.allowsPassthrough {
            lines.append("outer terminal DA1 (through tmux): \(attributes(tmux.outerDeviceAttributes))")
            lines.append("outer terminal version (through tmux): \(tmux.outerVersion ?? "-")")
        }
        lines.append("kitty graphics: \(yesNo(kitty.graphics)) (\(kitty.graphicsSource.rawValue))")
        lines.append("kitty shared memory (t=s): \(yesNo(kitty.sharedMemory))\(remote ? " (over SSH: not asked)" : "")")
        let unshown = !sixel.available && tmux.inside && tmux.pane?.clientSixel == false && terminal.deviceAttributes.dropFirst().contains(4)
        lines.append("sixel: \(yesNo(sixel.available))\(sixel.throughTmux ? " (outer terminal, through tmux)" : "")"
                     + (unshown ? " (tmux has sixel, but its terminal shows none)" : ""))
        lines.append("sixel colour registers: \(sixel.colorRegisters.map(String.init) ?? "-")")
        lines.append("sixel max geometry: \(sixel.maxGeometry?.description ?? "-")")
        if sixel.available { lines.append("sixel composes images: \(yesNo(sixelComposes)) (\(sixelComposes ? "pictures with holes for overlays, changed pixels" : "pictures around overlays, whole pictures"))") }
        lines.append("cell size: \(window.cellSize?.description ?? "-") (\(window.cellSizeSource.rawValue))")
        if let c = window.columns, let r = window.rows { lines.append("screen: \(c)x\(r) cells") }
        lines.append("synchronized output (?2026): \(yesNo(synchronizedOutput))")
        lines.append("background (OSC 11): " + (background.map { String(cFormat: "#%02x%02x%02x", Int($0.red * 255), Int($0.green * 255), Int($0.blue * 255)) + ($0.isLight ? " (light)" : " (dark)") } ?? "-"))
        lines.append("truecolor: \(yesNo(truecolor)) (\(truecolorSource.rawValue))")
        lines.append("cells (--vo-cells=auto): \(CellSymbols.preferred(for: self))")
        return lines
    }
}
