import AetherPlayback
import AetherInput
import AetherScreen
import AetherThemes
import OutputChoice
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import TerminalGraphics

/// The terminal as the host draws on it: the writer every byte goes through (``Terminal``), the
/// picture's output and its driver, what the terminal can do, where the picture and the chrome
/// go, the theme's colours, and what was last drawn. It knows no player and no model: the host
/// hands it frames, scenes and layouts, and it tells the host what changed.
final class Display {
    let terminal: Terminal
    /// The picture's output: made with the display, drawing once the screen is up.
    let output: VideoOutput
    /// What the terminal can do (probed, then updated on resizes), guarded: the render thread reads it too.
    let sharedCapabilities: Guarded<TerminalCapabilities>
    var capabilities: TerminalCapabilities {
        get { sharedCapabilities.withLock { $0 } }
        set { sharedCapabilities.withLock { $0 = newValue } }
    }
    /// The active video driver (used here only for its placement; it draws on the render thread).
    var driver: any VideoDriver = NullDriver()
    var autoOutput: AutoOutput?   // `--vo=auto`'s figures and choice (``OutputSetup``)
    /// The theme's colours as the terminal shows them, and where the picture and the chrome go
    /// (no colours and a 1×1 screen until the screen is up).
    var palette: Palette
    var layout = Layout(columns: 1, rows: 1, cellSize: nil, displayAspect: 16.0 / 9, driver: nil, showTelemetry: false)
    /// What was last drawn.
    var screen = ScreenState()
    /// Drops terminal replies that arrive after the probe (they are not keys).
    var replyFilter = ReplyFilter()
    /// Text cues in cells, wrapped once per cue and width.
    var textCues = TextCueCells()
    /// The screen is up (items loaded before it only get wired to it when it comes up).
    var isUp = false
    let clock: TimeSource
    /// The chrome's theme: the one asked for, or chosen by the terminal's background once it is
    /// known (``TUIOptions/theme(on:)``, before the screen comes up).
    var theme: Theme
    let drivers: VideoDrivers.Options

    init(player: Player, options: TUIOptions, clock: TimeSource) {
        let shared = Guarded(TerminalCapabilities())
        (sharedCapabilities, self.clock, theme, drivers) = (shared, clock, options.theme, options.output.drivers)
        palette = Palette(theme: options.theme, colors: 0)
        terminal = Terminal(time: clock)
        output = VideoOutput(terminal: terminal, player: player, governed: options.output.governor, subtitleStyle: options.subtitleStyle,
                             clock: clock, makeStillDriver: { [drivers = options.output.drivers] name, instance in
                                 var options = drivers
                                 options.instance = instance
                                 return VideoDrivers.entry(named: name)?.make(shared.withLock { $0 }, options, clock)
                             })
        screen.terminalTitle = TerminalTitle(template: options.title)
    }

    /// What the views read of the display, as it is now.
    var reading: DisplayReading {
        DisplayReading(layout: layout, driver: driver, chromeVisible: screen.chromeVisible, cellSize: capabilities.window.cellSize,
                       outputDescription: outputDescription, picturesLostInTmux: checksTmuxDelivery ? screen.tmuxDelivery.lost : nil)
    }

    /// The video output as the stats box shows it.
    var outputDescription: String {
        let governed = output.governorDescription
        return governed.isEmpty ? driver.name : governed
    }

    /// Draws with `entry`'s driver from now on; the old output's picture is erased before
    /// anything is drawn for the new one.
    func use(_ entry: VideoDrivers.Entry, options: VideoDrivers.Options? = nil) {
        driver = entry.make(capabilities, options ?? drivers, clock)
        terminal.withScreen { output.setDriver(driver) }
    }

    /// What a look at the terminal changed for the host.
    enum Change {
        case nothing
        /// Lay out again.
        case layout
        /// Lay out again with a driver made anew (its picture scale starts over).
        case driver
    }

    /// Everything available from the terminal now, in one read (so that a terminal reply is
    /// seen whole), replies the player did not ask for dropped; `more`: ncurses may hold more
    /// than one read takes (read again without waiting).
    func read() -> (inputs: [TerminalInput], read: Bool, more: Bool) {
        // Read without blocking (the wait happened without holding the TTY lock: the present
        // thread must never wait on us).
        let batch = terminal.withScreen { Curses.read(limit: Self.maxInputPerRead) }
        return (replyFilter.feed(batch, now: clock.seconds), !batch.isEmpty, batch.count >= Self.maxInputPerRead)
    }

    /// Most inputs taken in one read (a paste can be long; the screen must still be drawn).
    static let maxInputPerRead = 4096

    /// SIGWINCH reaches ncurses only if its handler runs on a thread that then calls get_wch;
    /// asking the kernel on each pass of the loop (one ioctl; SIGWINCH wakes the loop) makes
    /// resizes certain. `anyway`: lay out and repaint even at the same size (after a suspend).
    /// The pixels too: a font change or tmux learning its terminal's is a new cell size.
    func checkSize(anyway: Bool = false) -> Change {
        var ws = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return anyway ? .layout : .nothing }
        let cellsChanged = Int(ws.ws_col) != layout.columns || Int(ws.ws_row) != layout.rows
        let cellSizeChanged = sharedCapabilities.withLock {
            $0.window.update(columns: Int(ws.ws_col), rows: Int(ws.ws_row), pixelWidth: Int(ws.ws_xpixel),
                             pixelHeight: Int(ws.ws_ypixel), inTmux: $0.tmux.inside)
        }
        if cellSizeChanged { AppLog.write("tui", "cell size now \(capabilities.window.cellSize?.description ?? "-")") }
        // Through tmux the window may be another terminal's now: its sixel limits, again (``takeReply(_:)``).
        if cellsChanged || cellSizeChanged, capabilities.tmux.allowsPassthrough {
            terminal.withScreen { terminal.emitInScreen(CapabilityProbe.outerSixelLimitsQuery) }
        }
        if cellsChanged {
            terminal.withScreen { Curses.resize(rows: Int(ws.ws_row), columns: Int(ws.ws_col)) }
            return refreshTmuxPane() ? .driver : .layout
        }
        return cellSizeChanged || anyway ? .layout : .nothing
    }

    /// The terminal's answer to ``CapabilityProbe/outerSixelLimitsQuery``: new limits are a new
    /// layout (the picture capped to them), new colour registers a sixel driver made for them.
    /// A DA1 answers the outstanding tmux delivery check.
    func takeReply(_ bytes: [UInt8]) -> Change {
        if bytes.last == UInt8(ascii: "c") {
            if checksTmuxDelivery { screen.tmuxDelivery.answer(now: clock.seconds) }
            return .nothing
        }
        let registers = capabilities.sixel.colorRegisters
        guard sharedCapabilities.withLock({ $0.sixel.takeLimits(from: bytes) }) else { return .nothing }
        let caps = capabilities
        AppLog.write("tui", "sixel limits now \(caps.sixel.maxGeometry?.description ?? "-"), \(caps.sixel.colorRegisters.map(String.init) ?? "-") colours")
        if caps.sixel.colorRegisters != registers, let entry = VideoDrivers.entry(named: driver.name), entry.madeForColourRegisters {
            use(entry)
        }
        return .layout
    }

    /// Inside tmux with passthrough, pictures are placed from the pane's origin on the outer
    /// terminal, and a resize may have moved the pane (a split, a closed neighbour): ask tmux
    /// again (a few milliseconds) and, if the pane moved, draw with a driver made for where it
    /// is. True when the driver was made anew.
    private func refreshTmuxPane() -> Bool {
        guard capabilities.tmux.allowsPassthrough else { return false }
        let environment = TerminalEnvironment(ProcessInfo.processInfo.environment)
        guard let pane = TmuxQuery(environment: environment).finish(timeout: .milliseconds(100)),
              pane != capabilities.tmux.pane else { return false }
        capabilities.tmux.pane = pane
        guard let entry = VideoDrivers.entry(named: driver.name) else { return false }
        use(entry)
        return true
    }

    /// The output's placement and mask for the current layout and overlays, with the stills
    /// `stills` gives for that mask. Call inside `terminal.withScreen`, before ncurses draws the
    /// overlays.
    func updateScene(stills: (CellMask) -> [VideoOutput.Still]) {
        var mask = CellMask(columns: layout.columns, rows: layout.rows)
        for r in screen.overlayRects { mask.cover(r) }
        output.configure(.init(placement: layout.placement, mask: mask, stills: stills(mask)))
    }

    /// Where stills go on this layout, placed by this driver.
    var stillLayout: StillLayout { StillLayout(layout: layout, driver: driver) }
}

/// What the views read of the display (``Display/reading``): the layout, the driver that places
/// pictures on it, whether the chrome shows, the terminal's cell, the output as the stats box
/// names it. A value, made for each draw.
struct DisplayReading {
    var layout: Layout
    var driver: any VideoDriver
    /// The title and transport rows show (``ScreenState/chromeVisible``).
    var chromeVisible = true
    var cellSize: CellSize?
    var outputDescription: String
    /// Pictures lost in tmux's passthrough and sent again (nil: not checked).
    var picturesLostInTmux: Int?

    var stillLayout: StillLayout { StillLayout(layout: layout, driver: driver) }
}
