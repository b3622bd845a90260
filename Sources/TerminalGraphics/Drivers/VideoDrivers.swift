import AetherBase

/// The registry of video output drivers: `--vo` names to drivers, and `auto`'s choice.
///
/// This is the only place that knows which kinds of output exist.
public enum VideoDrivers {
    /// Options the drivers take from the command line.
    public struct Options: Sendable, Equatable {
        /// `--vo-sixel-colors` (nil: the terminal's colour registers).
        public var sixelColors: Int?
        public var sixelDither: SixelDither
        /// `--vo-sixel-repaint` (nil: auto, ``VideoDrivers/sixelRepaint(for:)``).
        public var sixelRepaint: SixelRepaint?
        /// `--vo-halfblock-colors` (nil: what the terminal supports), for every cell output.
        public var halfBlockColors: CellColorMode?
        /// `--vo-cells` (nil: what the terminal draws, see ``CellSymbols/preferred(for:)``).
        public var cellSymbols: CellSymbols?
        /// `--vo-cells-tolerance` (nil: ``CellDriver/defaultTolerance``).
        public var cellTolerance: Double?
        /// Which picture this driver draws: 0 the video, 1… other pictures on the same screen
        /// (scrub previews); kitty gives each its own image id.
        public var instance: Int
        /// `--vo-kitty-use-shm`.
        public var kittySharedMemory: KittySharedMemoryUse = .auto

        public init(sixelColors: Int? = nil, sixelDither: SixelDither = .none, sixelRepaint: SixelRepaint? = nil,
                    halfBlockColors: CellColorMode? = nil, cellSymbols: CellSymbols? = nil, cellTolerance: Double? = nil,
                    instance: Int = 0) {
            self.sixelColors = sixelColors
            self.sixelDither = sixelDither
            self.sixelRepaint = sixelRepaint
            self.halfBlockColors = halfBlockColors
            self.cellSymbols = cellSymbols
            self.cellTolerance = cellTolerance
            self.instance = max(0, instance)
        }
    }

    /// One registered driver.
    public struct Entry: Sendable {
        public let name: String
        public let summary: String
        /// Whether the probed terminal can show it (auto only picks these; the order of
        /// ``all`` is auto's preference).
        public let suits: @Sendable (TerminalCapabilities) -> Bool
        /// Its pictures are made for the terminal's colour registers (sixel's palette): a
        /// driver made anew when the terminal says it has other registers.
        public var madeForColourRegisters = false
        /// It can send frames through shared memory as well as through the tty (kitty): `auto`
        /// weighs both ways.
        public var offersSharedMemory = false
        /// It draws nothing (`null`): the host plays without a screen.
        public var isHeadless = false
        /// The driver for a terminal, with the options and the clock it keeps its time by (kitty's
        /// shared-memory frames).
        public let make: @Sendable (TerminalCapabilities, Options, TimeSource) -> any VideoDriver
    }

    /// Every driver, best first: kitty > sixel > cells finer than half blocks (where the
    /// terminal draws them) > half-block; null last (never auto).
    ///
    /// Inside tmux, kitty and sixel suit only what passthrough reaches (or, for sixel, tmux's own
    /// sixel); without `allow-passthrough` auto picks half-block.
    public static let all: [Entry] = [kitty, sixel, cells, halfBlock, null]

    /// What a governed pixel driver gives up for when the terminal cannot keep up (its last
    /// rung, ``OutputGovernor/Settings/fallback``): half-block, which every terminal shows.
    public static var fallback: Entry { halfBlock }

    private static let kitty =
        Entry(name: "kitty", summary: "kitty graphics protocol images (kitty, WezTerm, ghostty, Konsole; tmux with allow-passthrough)",
              suits: { $0.kitty.graphics && (!$0.tmux.inside || $0.tmux.allowsPassthrough) }, offersSharedMemory: true) { caps, options, clock in
            // Inside tmux always wrapped: a bare APC string would become the pane's title.
            KittyDriver(passthrough: caps.tmux.passthrough, imageID: KittyDriver.defaultImageID + options.instance,
                        transmission: options.kittySharedMemory.transmission(for: caps),
                        compresses: KittySharedMemoryUse.compresses(for: caps),
                        placeholders: KittyDriver.placeholders(for: caps), clock: clock)
        }
    private static let sixel =
        Entry(name: "sixel", summary: "DEC sixel images (xterm -ti vt340, foot, WezTerm, mlterm, …)",
              suits: { $0.sixel.available && (!$0.sixel.throughTmux || $0.tmux.allowsPassthrough) }, madeForColourRegisters: true) { caps, options, _ in
            SixelDriver(colors: min(options.sixelColors ?? caps.sixel.effectiveColors, caps.sixel.effectiveColors),
                        dither: options.sixelDither, repaint: options.sixelRepaint ?? sixelRepaint(for: caps),
                        overlays: caps.sixelComposes ? .transparent : .clipped,
                        passthrough: caps.sixel.throughTmux ? caps.tmux.passthrough : nil)
        }
    private static let cells =
        Entry(name: "cells", summary: "octant, sextant or quadrant cells, 2×4, 2×3 or 2×2 pixels each (--vo-cells)",
              suits: { CellSymbols.preferred(for: $0) != .half }) { caps, options, _ in
            cellDriver("cells", symbols: options.cellSymbols ?? CellSymbols.preferred(for: caps), caps, options)
        }
    private static let halfBlock =
        Entry(name: "halfblock", summary: "▀ cells in 24-bit or 256 colours (any terminal)",
              suits: { _ in true }) { caps, options, _ in
            cellDriver("halfblock", symbols: .half, caps, options)
        }

    /// A cell output with the options' colours and tolerance (else what the terminal has and
    /// the default).
    private static func cellDriver(_ name: String, symbols: CellSymbols, _ caps: TerminalCapabilities,
                                   _ options: Options) -> CellDriver {
        CellDriver(symbols: symbols, colorMode: options.halfBlockColors ?? (caps.truecolor ? .truecolor : .palette256),
                   tolerance: options.cellTolerance ?? CellDriver.defaultTolerance, name: name)
    }
    private static let null =
        Entry(name: "null", summary: "no picture (headless playback)", suits: { _ in false }, isHeadless: true) { _, _, _ in NullDriver() }

    /// `auto` and every driver name.
    public static var names: [String] { ["auto"] + all.map(\.name) }

    /// `--vo`: a registered driver, or `auto` (the host measures). Parsed from the argument
    /// once, by the registry; the host asks it what it is, never its name.
    public enum Choice: Sendable, Equatable {
        case auto
        /// A registered driver, by its entry's name.
        case driver(String)

        /// `auto`, or a name the registry has; nil for anything else.
        public init?(name: String) {
            if name == "auto" { self = .auto; return }
            guard let entry = VideoDrivers.entry(named: name) else { return nil }
            self = .driver(entry.name)
        }

        public var name: String { if case .driver(let name) = self { name } else { "auto" } }

        /// The registry's entry (nil for `auto`).
        public var entry: Entry? { if case .driver(let name) = self { VideoDrivers.entry(named: name) } else { nil } }

        /// The host plays without a screen (`null`).
        public var isHeadless: Bool { entry?.isHeadless == true }
    }

    /// The driver `choice` means on this terminal (``resolve(_:capabilities:)``).
    public static func make(_ choice: Choice, capabilities: TerminalCapabilities, options: Options, clock: TimeSource) -> (any VideoDriver)? {
        make(choice.name, capabilities: capabilities, options: options, clock: clock)
    }

    public static func entry(named name: String) -> Entry? { all.first { $0.name == name } }

    /// The driver `name` means on this terminal: `auto` is the best one the terminal has;
    /// an explicit name is kept (the user may know better than the probe). Nil for an unknown name.
    public static func resolve(_ name: String, capabilities: TerminalCapabilities) -> Entry? {
        if name == "auto" { return all.first { $0.suits(capabilities) } }
        return entry(named: name)
    }

    /// Makes the driver `name` resolves to.
    public static func make(_ name: String, capabilities: TerminalCapabilities, options: Options, clock: TimeSource) -> (any VideoDriver)? {
        resolve(name, capabilities: capabilities).map { $0.make(capabilities, options, clock) }
    }

    /// The drivers a "next output" key cycles through on this terminal: the ones that suit it,
    /// plus `current` when the user chose it explicitly.
    public static func cycle(after current: String, capabilities: TerminalCapabilities) -> Entry? {
        let usable = all.filter { $0.suits(capabilities) || $0.name == current }
        guard usable.count > 1, let i = usable.firstIndex(where: { $0.name == current }) else { return nil }
        return usable[(i + 1) % usable.count]
    }

    /// `--vo-sixel-repaint=auto`: only what changed where the terminal is known to compose
    /// images (a new image's unset pixels keep the earlier image under them), whole pictures
    /// everywhere else. Decided by the real-terminal matrix (`TerminalMatrixTests`, grainy and
    /// testsrc2 clips under Xvfb):
    /// - xterm (`XTerm(`, also as tmux's outer terminal) and foot (`foot(`) compose: changed
    ///   pixels give the same picture as whole ones with fewer bytes (xterm 379 at 576×324:
    ///   4.1 MB against 7.6 MB in 5 s, 112 and 110 frames painted; at 1020×754 grain 26 and
    ///   23 frames, the same bytes: everything changes);
    /// - mlterm 3.9 draws a new image's unset pixels as background: changed pixels leave a
    ///   mostly white picture (5 dB against the source), whole pictures are right (29 dB);
    /// - any other terminal, or one that does not say its name (mlterm does not answer
    ///   XTVERSION), gets whole pictures, which are right everywhere.
    ///
    /// The same fact decides how a picture leaves overlays alone (``SixelOverlays``): holes
    /// where the terminal composes, the picture in pieces around them elsewhere.
    public static func sixelRepaint(for caps: TerminalCapabilities) -> SixelRepaint {
        caps.sixelComposes ? .changed : .full
    }

    /// The half-block colour mode for `--vo-halfblock-colors` (nil for an unknown value).
    public static func halfBlockColors(option: String) -> CellColorMode? {
        switch option.lowercased() {
        case "truecolor", "24bit", "rgb": .truecolor
        case "256": .palette256
        default: nil
        }
    }
}
