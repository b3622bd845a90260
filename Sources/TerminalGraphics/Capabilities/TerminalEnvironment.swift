/// Environment hints for the probe. Hints only (habit 14): the terminal's replies win.
public struct TerminalEnvironment: Sendable, Equatable {
    public var term: String?
    public var termProgram: String?
    public var colorTerm: String?
    /// `$TMUX` (set inside tmux).
    public var tmux: String?
    /// `$TMUX_PANE` (the pane's id, `%3`, inside tmux).
    public var tmuxPane: String?
    /// terminfo's `RGB` or `Tc` flag, if the host looked it up (e.g. ncurses `tigetflag`);
    /// TerminalGraphics does not read terminfo itself.
    public var terminfoTruecolor: Bool?
    /// `$SSH_CONNECTION` or `$SSH_TTY` is set: the terminal is on another machine (it cannot map
    /// our shared memory).
    public var overSSH = false

    public init(term: String? = nil, termProgram: String? = nil, colorTerm: String? = nil,
                tmux: String? = nil, tmuxPane: String? = nil, terminfoTruecolor: Bool? = nil) {
        self.term = term
        self.termProgram = termProgram
        self.colorTerm = colorTerm
        self.tmux = tmux
        self.tmuxPane = tmuxPane
        self.terminfoTruecolor = terminfoTruecolor
    }

    /// Reads `TERM`, `TERM_PROGRAM`, `COLORTERM`, `TMUX` and `TMUX_PANE` from a dictionary (pass
    /// `ProcessInfo.processInfo.environment`).
    public init(_ environment: [String: String], terminfoTruecolor: Bool? = nil) {
        func value(_ key: String) -> String? {
            guard let v = environment[key], !v.isEmpty else { return nil }
            return v
        }
        self.init(term: value("TERM"), termProgram: value("TERM_PROGRAM"), colorTerm: value("COLORTERM"),
                  tmux: value("TMUX"), tmuxPane: value("TMUX_PANE"), terminfoTruecolor: terminfoTruecolor)
        overSSH = value("SSH_CONNECTION") != nil || value("SSH_TTY") != nil
    }

    /// The terminal may share our memory: not over SSH, not behind tmux or GNU screen.
    /// The terminal may be on this machine, so kitty's shared memory (`t=s`) is worth asking
    /// about: not over SSH and not in GNU screen. Inside tmux it is asked through the
    /// passthrough, and the outer terminal's answer decides (a client attached from another
    /// machine cannot read the object and says so).
    public var mayShareMemory: Bool { !overSSH && !inScreen }

    public var inTmux: Bool {
        tmux != nil || (term?.hasPrefix("tmux") ?? false) || termProgram == "tmux"
    }

    /// GNU screen (outside tmux): it takes an APC string for its hardstatus line, so kitty's
    /// query is not sent to it.
    public var inScreen: Bool {
        !inTmux && (term?.hasPrefix("screen") ?? false)
    }

    /// Whether the environment names a terminal with kitty's graphics protocol (`TERM=xterm-kitty`,
    /// `TERM_PROGRAM` kitty, WezTerm or ghostty). A hint for a terminal that did not answer at
    /// all; never believed inside tmux, whose panes see tmux, not the terminal.
    public var suggestsKittyGraphics: Bool {
        guard !inTmux else { return false }
        if term == "xterm-kitty" { return true }
        return termProgram.map(["kitty", "WezTerm", "ghostty"].contains) ?? false
    }

    /// Whether the environment says 24-bit colour works.
    public var suggestsTruecolor: Bool {
        if let c = colorTerm?.lowercased(), c == "truecolor" || c == "24bit" { return true }
        if terminfoTruecolor == true { return true }
        if let t = term?.lowercased(), t.hasSuffix("-direct") || t.contains("truecolor") || t.contains("24bit") {
            return true
        }
        let known: Set<String> = ["iTerm.app", "WezTerm", "vscode", "ghostty", "Hyper", "kitty", "Alacritty", "contour"]
        return termProgram.map(known.contains) ?? false
    }
}
