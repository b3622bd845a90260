import AetherBase
#if canImport(Glibc)
import Glibc
#endif

/// Asks the terminal what it can do, within a time budget, ending with a sentinel every
/// terminal answers (habit 14; timg's `CSI >q` + `CSI 5n`).
///
/// One write carries every query, DSR last:
/// DA1 (`CSI c`), XTSMGRAPHICS colour registers and sixel geometry (`CSI ?1;1;0S`,
/// `CSI ?2;1;0S`), cell size (`CSI 16 t`), text area (`CSI 14 t`), screen cells (`CSI 18 t`),
/// synchronized output (DECRQM `CSI ?2026$p`), the terminal's name (XTVERSION `CSI >0q`),
/// 24-bit colour (``directColorQueries``: XTGETTCAP `RGB`/`Tc`, and DECRQSS of a direct-colour
/// SGR set for the purpose), kitty graphics (`APC G a=q …`, a 1×1 image the terminal only
/// checks), then DSR (`CSI 5n`).
/// Terminals answer in order, so the DSR reply (`CSI 0n`) means every answer the terminal will
/// give has arrived; a silent terminal costs at most the budget. Bytes that are not replies come back as ``Report/strayInput``.
///
/// Inside tmux the panes see tmux, not the terminal: tmux answers DA1 and DSR itself and takes a
/// bare APC string for a pane title. So there the kitty query, XTVERSION and a second DA1 go first,
/// wrapped for tmux's passthrough (``TmuxPassthrough``), to the outer terminal; tmux drops them
/// unless `allow-passthrough` is on, which ``TmuxQuery`` asks tmux (a child process started
/// before the queries go out and collected after the sentinel). With passthrough on, the outer
/// terminal's replies come after tmux's own (they make a round trip through it), its DA1 last:
/// the probe waits for that second DA1 (or the budget), takes kitty graphics and sixel from the
/// outer terminal, and the drivers wrap what they draw. The outer terminal is asked its sixel
/// limits and cell size too (``outerGeometryQueries``): tmux 3.3 answers neither, and a picture
/// wider than the outer terminal's sixel limit (xterm's 1000 px) is not drawn at all.
public enum CapabilityProbe {
    /// Long enough for a terminal over ssh, short enough not to be noticed at startup.
    public static let defaultBudget: Duration = .milliseconds(250)

    /// kitty's graphics query: can a 1×1 RGB image with id 31 be loaded? (`a=q`: checked, not
    /// stored or shown). kitty, WezTerm, ghostty and Konsole answer `i=31;OK`.
    public static let kittyQuery: [UInt8] = Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\".utf8)
    /// The image id of ``kittyQuery``.
    static let kittyQueryID = 31
    /// The image id of ``kittySharedMemoryQuery(name:)``.
    static let kittySharedMemoryQueryID = 32

    /// kitty's graphics query through shared memory: can a 1×1 RGB image be read from the POSIX
    /// shared memory object `name` (`t=s`)? A terminal that can answers `i=32;OK` (and unlinks the
    /// object); one that cannot, an error.
    public static func kittySharedMemoryQuery(name: String) -> [UInt8] {
        let bare = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return Array("\u{1B}_Gi=\(kittySharedMemoryQueryID),s=1,v=1,a=q,t=s,f=24,S=3;".utf8)
            + Base64.encode(Array(bare.utf8)) + Array("\u{1B}\\".utf8)
    }

    /// Every query but the colour queries, kitty's and the sentinel.
    private static let textQueries: [UInt8] = Array("\u{1B}[c".utf8) + sixelLimitQueries
        + Array(("\u{1B}[16t" + "\u{1B}[14t" + "\u{1B}[18t" + "\u{1B}[?2026$p" + "\u{1B}[>0q" + "\u{1B}]11;?\u{1B}\\").utf8)
    /// XTSMGRAPHICS: the sixel colour registers and the largest image.
    static let sixelLimitQueries: [UInt8] = Array(("\u{1B}[?1;1;0S" + "\u{1B}[?2;1;0S").utf8)
    /// What the outer terminal is asked through tmux's passthrough besides its name and DA1: its
    /// sixel limits and its cell size (`CSI 16 t`).
    static let outerGeometryQueries: [UInt8] = sixelLimitQueries + Array("\u{1B}[16t".utf8)
    /// The outer terminal's sixel limits asked again through tmux's passthrough while playing (a
    /// resize may mean a client on another terminal); the answers come back as input
    /// (``TerminalCapabilities/Sixel/takeLimits(from:)``).
    public static let outerSixelLimitsQuery: [UInt8] = TmuxPassthrough.wrap(sixelLimitQueries)
    /// The foreground ``directColorQueries`` sets and asks back: no 256-colour palette has it,
    /// so a terminal that keeps colours as palette indices answers with another colour.
    static let probeColor: (red: Int, green: Int, blue: Int) = (1, 2, 3)
    /// 24-bit colour, asked two ways (xterm sets no `COLORTERM` and has no terminfo flag for it
    /// in its usual entries; measured answers in ``directColor(inSetting:)``):
    /// - XTGETTCAP (`DCS + q 524742;5463 ST`): the terminal's own `RGB` and `Tc` capabilities
    ///   (foot answers `RGB=8`; kitty and mlterm answer "unknown"; xterm nothing);
    /// - DECRQSS of the SGR after setting the foreground to ``probeColor`` with the
    ///   semicolon form every 24-bit terminal parses (`CSI 38;2;1;2;3 m`, `DCS $ q m ST`): xterm,
    ///   foot and kitty answer it as a direct colour, mlterm as `38;5;16` (its nearest palette
    ///   entry). The attributes are reset (`CSI 0 m`) at once; nothing is printed in between.
    public static let directColorQueries: [UInt8] = Array(
        ("\u{1B}P+q524742;5463\u{1B}\\" + "\u{1B}[38;2;1;2;3m" + "\u{1B}P$qm\u{1B}\\" + "\u{1B}[0m").utf8)
    /// DSR, the sentinel.
    private static let sentinel: [UInt8] = Array("\u{1B}[5n".utf8)

    /// The queries, in one write (outside tmux, GNU screen and the Linux console).
    public static let query: [UInt8] = textQueries + directColorQueries + kittyQuery + sentinel

    /// The queries for a terminal in `environment`: ``query``; inside tmux the kitty query,
    /// XTVERSION, the sixel limits, the cell size and a DA1 for the outer terminal wrapped first and no bare APC (tmux would take
    /// it for a pane title); in GNU screen no APC (its hardstatus line) and no DCS (screen hands
    /// DCS strings to the terminal outside it, whose answer would not be screen's); on the Linux
    /// console (`TERM=linux`, which knows no DCS) no colour queries. `sharedMemory`, kitty's
    /// `t=s` query, goes before the sentinel, or inside tmux wrapped after the kitty query
    /// (only where the terminal may be on this machine: ``TerminalEnvironment/mayShareMemory``).
    public static func queries(for environment: TerminalEnvironment, sharedMemory: [UInt8]? = nil) -> [UInt8] {
        if environment.term == "linux" { return textQueries + kittyQuery + (sharedMemory ?? []) + sentinel }
        guard environment.inTmux || environment.inScreen else {
            guard let sharedMemory else { return query }
            return textQueries + directColorQueries + kittyQuery + sharedMemory + sentinel
        }
        var bytes: [UInt8] = []
        if environment.inTmux {
            bytes += TmuxPassthrough.wrap(kittyQuery) + (sharedMemory.map(TmuxPassthrough.wrap) ?? [])
                + TmuxPassthrough.wrap(Array("\u{1B}[>0q".utf8))
                + TmuxPassthrough.wrap(outerGeometryQueries) + TmuxPassthrough.wrap(Array("\u{1B}[c".utf8))
            return bytes + textQueries + directColorQueries + sentinel
        }
        return bytes + textQueries + sentinel
    }

    /// An XTGETTCAP entry that says 24-bit colour: `Tc` (a flag), or `RGB` as a flag or with
    /// bits per channel (`8`, `8/8/8`).
    static func namesDirectColor(_ entry: TermcapEntry) -> Bool {
        switch entry.name {
        case "Tc": true
        case "RGB": entry.value.map { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "/") } } ?? true
        default: false
        }
    }

    /// What a DECRQSS answer for SGR (`0;38:2::1:2:3m`) says after the probe set the foreground
    /// to ``probeColor``: true when it holds that colour as RGB (`38:2::r:g:b` with a colour
    /// space, `38:2:r:g:b`, `38;2;r;g;b`), false when it holds a palette index instead
    /// (`38;5;n`, `38:5:n`), nil when it is no SGR or holds no foreground (no answer either way).
    /// At most ``ReplyLimits/settingParameters`` parameters are read.
    static func directColor(inSetting text: String) -> Bool? {
        guard text.hasSuffix("m") else { return nil }
        let parameters = text.dropLast().split(separator: ";", omittingEmptySubsequences: false)
            .prefix(ReplyLimits.settingParameters)
            .map { $0.split(separator: ":", omittingEmptySubsequences: false).map { Int($0.prefix(7)) } }
        let wanted = [probeColor.red, probeColor.green, probeColor.blue]
        var i = 0
        while i < parameters.count {
            let sub = parameters[i]
            guard sub.first == 38 else { i += 1; continue }
            if sub.count > 1 {
                // Colon form: 38:2:[colour space:]r:g:b or 38:5:n.
                if sub[1] == 5 { return false }
                guard sub[1] == 2, sub.count == 5 || sub.count == 6 else { return nil }
                return sub.suffix(3).map { $0 ?? -1 } == wanted
            }
            let next = parameters.dropFirst(i + 1).map { $0.count == 1 ? $0[0] : nil }
            if next.first == 5 { return false }
            guard next.first == 2, next.count >= 4 else { return nil }
            return next[1...3].map { $0 ?? -1 } == wanted
        }
        return nil
    }

    /// What the probe found.
    public struct Report: Sendable, Equatable {
        public var capabilities: TerminalCapabilities
        /// Input that was not a reply (keys typed during the probe), for the host's input queue.
        public var strayInput: [UInt8]
        /// The transport failed (the capabilities then come from the environment only).
        public var error: SystemCallError?
    }

    /// Probes through `transport`.
    ///
    /// - Parameters:
    ///   - windowSize: TIOCGWINSZ of the terminal if known (cells and pixels; pixels 0 = unknown).
    ///   - budget: the longest the probe waits for the sentinel.
    ///   - tmuxPane: inside tmux, what tmux says about the pane (called once, after tmux's
    ///     sentinel, with the time left; nil: tmux did not say, so no passthrough).
    public static func probe<T: ProbeTransport>(
        transport: inout T, environment: TerminalEnvironment,
        windowSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? = nil,
        budget: Duration = defaultBudget,
        sharedMemoryQuery: [UInt8]? = nil,
        tmuxPane: (_ timeLeft: Duration) -> TmuxPane? = { _ in nil },
        time: TimeSource
    ) -> Report {
        let start = time.seconds
        let deadline = start + Double(budget.components.seconds) + Double(budget.components.attoseconds) * 1e-18
        var caps = TerminalCapabilities()
        caps.terminal.term = environment.term
        caps.terminal.termProgram = environment.termProgram
        caps.tmux.inside = environment.inTmux
        caps.remote = environment.overSSH
        var parser = ReplyParser()
        var stray: [UInt8] = []
        var replies: [TerminalReply] = []
        var failure: SystemCallError?
        var attributeReplies = 0
        /// Reads until `done` holds or the deadline passes.
        func read(until done: () -> Bool) throws(SystemCallError) {
            while !done() {
                let now = time.seconds
                guard now < deadline else { return }
                let bytes = try transport.receive(timeout: .seconds(deadline - now))
                guard !bytes.isEmpty else { continue }
                let parsed = parser.feed(bytes)
                stray += parsed.stray
                for reply in parsed.replies {
                    switch reply {
                    case .statusReport: caps.probe.answered = true
                    case .deviceAttributes: attributeReplies += 1
                    default: break
                    }
                    replies.append(reply)
                }
            }
        }
        do throws(SystemCallError) {
            try transport.send(queries(for: environment, sharedMemory: environment.mayShareMemory ? sharedMemoryQuery : nil))
            try read { caps.probe.answered }
            if environment.inTmux {
                caps.tmux.pane = tmuxPane(.seconds(max(0, deadline - time.seconds)))
                // The outer terminal answers through tmux after tmux's own replies, DA1 last.
                if caps.tmux.allowsPassthrough { try read { attributeReplies >= 2 } }
            }
        } catch {
            failure = error
        }
        apply(replies, environment: environment, windowSize: windowSize, to: &caps)
        caps.probe.milliseconds = (time.seconds - start) * 1000
        return Report(capabilities: caps, strayInput: stray, error: failure)
    }

    /// Probes the terminal on `input`/`output` (switching `input` to raw mode for the duration)
    /// with the process environment as hints; inside tmux asks tmux about passthrough at the
    /// same time (``TmuxQuery``).
    public static func probe(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                             environment: TerminalEnvironment, budget: Duration = defaultBudget, time: TimeSource) -> Report {
        let tmux = environment.inTmux ? TmuxQuery(environment: environment) : nil
        var transport = FileDescriptorTransport(input: input, output: output)
        defer { transport.restore() }
        let size = FileDescriptorTransport.windowSize(output) ?? FileDescriptorTransport.windowSize(input)
        // kitty's t=s query reads a 1×1 black picture from an object made here; a terminal that
        // took it unlinked it, one that did not leaves it to `reclaim` after the sentinel.
        let shared = environment.mayShareMemory ? try? SharedMemoryFrame.create(name: "/aether-probe-\(getpid())", size: 3) : nil
        if let shared, let bytes = shared.bytes { bytes.initializeMemory(as: UInt8.self, repeating: 0) }
        shared?.handOff()
        defer { shared?.reclaim() }
        return probe(transport: &transport, environment: environment, windowSize: size, budget: budget,
                     sharedMemoryQuery: shared.map { kittySharedMemoryQuery(name: $0.name) },
                     // tmux answers in a few milliseconds; a busy server gets at least 100 ms.
                     tmuxPane: { timeLeft in tmux?.finish(timeout: max(timeLeft, .milliseconds(100))) }, time: time)
    }

    /// Folds replies, the window size and environment hints into capabilities.
    ///
    /// Every size is checked against ``ReplyLimits``; one out of range is dropped, as if the
    /// terminal had not sent it, so the next source (or the fallback) is used.
    static func apply(_ replies: [TerminalReply], environment: TerminalEnvironment,
                      windowSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)?,
                      to caps: inout TerminalCapabilities) {
        var cellReply: CellSize?
        var textArea: PixelSize?
        var settingDirect: Bool?
        var termcapDirect = false
        let cells = ReplyLimits.screenCells, pixels = ReplyLimits.windowPixels
        let ws = windowSize.flatMap { cells.contains($0.columns) && cells.contains($0.rows) ? $0 : nil }
        if let ws {
            caps.window.columns = ws.columns
            caps.window.rows = ws.rows
        }
        // Inside tmux with passthrough the first DA1 is tmux's, a second the outer terminal's;
        // kitty replies come only from the outer terminal (tmux has no kitty graphics), and
        // without passthrough none is believed.
        let passthrough = caps.tmux.allowsPassthrough
        var attributeReplies = 0
        for reply in replies {
            switch reply {
            case .deviceAttributes(let attributes) where passthrough && attributeReplies == 1:
                attributeReplies += 1
                caps.tmux.outerDeviceAttributes = Array(attributes.prefix(64))
                if !caps.sixel.available, attributes.dropFirst().contains(4) {
                    caps.sixel.available = true
                    caps.sixel.throughTmux = true
                }
            case .deviceAttributes(let attributes):
                guard attributeReplies == 0 else { break }
                attributeReplies += 1
                caps.terminal.deviceAttributes = Array(attributes.prefix(64))
                // Inside tmux this is tmux's answer: its own sixel shows only where its terminal
                // has sixel (``TmuxPane/clientSixel``); the outer terminal's may still come below.
                caps.sixel.available = attributes.dropFirst().contains(4) && !(caps.tmux.inside && caps.tmux.pane?.clientSixel == false)
            case .kittyGraphics(let id, let ok) where id == kittySharedMemoryQueryID && environment.mayShareMemory
                                                   && (!caps.tmux.inside || passthrough):
                caps.kitty.sharedMemory = ok
            case .kittyGraphics(let id, let ok) where id == kittyQueryID && (!caps.tmux.inside || passthrough):
                caps.kitty.graphics = ok
                caps.kitty.graphicsSource = .terminal
            // Inside tmux both tmux (a build with sixel) and the outer terminal may answer: the
            // smaller limit holds for both.
            case .graphicsAttribute(let item, status: 0, let values):
                caps.sixel.noteLimit(item: item, values: values, keepingSmaller: true)
            case .windowReport(kind: 6, let h, let w):
                // tmux's placeholder is no answer (see ``TerminalCapabilities/Tmux/assumedCell``).
                let size = CellSize(width: w, height: h)
                if size.isValid, cellReply == nil || cellReply == TerminalCapabilities.Tmux.assumedCell { cellReply = size }
            case .windowReport(kind: 4, let h, let w):
                if pixels.contains(w), pixels.contains(h) { textArea = PixelSize(width: w, height: h) }
            case .windowReport(kind: 8, let rows, let columns):
                if caps.window.rows == nil, cells.contains(rows), cells.contains(columns) {
                    caps.window.rows = rows
                    caps.window.columns = columns
                }
            case .modeReport(mode: 2026, let value):
                caps.synchronizedOutput = (1...3).contains(value)
            case .background(let colour):
                if caps.background == nil { caps.background = colour }
            case .terminalVersion(let name) where caps.tmux.inside && !name.hasPrefix("tmux"):
                // The outer terminal's name, asked through passthrough (tmux calls itself "tmux 3.3a").
                if passthrough, caps.tmux.outerVersion == nil { caps.tmux.outerVersion = name }
            case .terminalVersion(let name):
                if caps.terminal.version == nil { caps.terminal.version = name }
            case .setting(valid: true, let text):
                if let direct = directColor(inSetting: text) { settingDirect = direct }
            case .termcap(valid: true, let entries):
                if entries.contains(where: Self.namesDirectColor) { termcapDirect = true }
            default:
                break
            }
        }
        // Cell size: the terminal's answer (CSI 16 t, else CSI 14 t ÷ cells) is kept for
        // ``TerminalCapabilities/Window/update(columns:rows:pixelWidth:pixelHeight:inTmux:)``,
        // which weighs it against TIOCGWINSZ now and on every resize.
        if let cellReply {
            caps.window.cellSizeReply = cellReply
        } else if let textArea, let c = caps.window.columns, let r = caps.window.rows,
                  case let size = CellSize(width: textArea.width / c, height: textArea.height / r), size.isValid {
            caps.window.cellSizeReply = size
        }
        if let ws {
            caps.window.update(columns: ws.columns, rows: ws.rows, pixelWidth: ws.pixelWidth, pixelHeight: ws.pixelHeight, inTmux: caps.tmux.inside)
        } else if let reply = caps.window.cellSizeReply {
            caps.window.cellSize = reply
            caps.window.cellSizeSource = .terminal
        }
        // A terminal that did not answer at all may still be kitty (a slow link): its name says so.
        if !caps.probe.answered, replies.isEmpty, environment.suggestsKittyGraphics {
            caps.kitty.graphics = true
            caps.kitty.graphicsSource = .environment
        }
        // 24-bit colour: the terminal's own answer wins (it either keeps a colour as RGB or
        // turned it into a palette index), then its name, then the environment's hints.
        if settingDirect == true || termcapDirect {
            caps.truecolor = true
            caps.truecolorSource = .terminal
        } else if settingDirect == false {
            caps.truecolor = false
            caps.truecolorSource = .terminal
        } else if caps.terminal.namesDirectColorTerminal, !caps.tmux.inside {
            caps.truecolor = true
            caps.truecolorSource = .terminal
        } else if caps.tmux.inside, caps.tmux.pane?.rgb == true {
            // tmux says its terminal takes 24-bit colour (it would turn it into 256 otherwise).
            caps.truecolor = true
            caps.truecolorSource = .terminal
        } else if environment.suggestsTruecolor {
            caps.truecolor = true
            caps.truecolorSource = .environment
        }
    }
}
