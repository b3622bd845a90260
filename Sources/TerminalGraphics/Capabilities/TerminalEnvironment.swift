/// Environment hints for the probe. Hints only (habit 14): the terminal's replies win.
public struct TerminalEnvironment: Sendable, Equatable {
    public var term: String?
    public var termProgram: String?
    public var colorTerm: String?
    /// `$TMUX` (set inside tmux).
    public var tmux: String?
    /// terminfo's `RGB` or `Tc` flag, if the host looked it up (e.g. ncurses `tigetflag`);
    /// TerminalGraphics does not read terminfo itself.
    public var terminfoTruecolor: Bool?

    public init(term: String? = nil, termProgram: String? = nil, colorTerm: String? = nil,
                tmux: String? = nil, terminfoTruecolor: Bool? = nil) {
        self.term = term
        self.termProgram = termProgram
        self.colorTerm = colorTerm
        self.tmux = tmux
        self.terminfoTruecolor = terminfoTruecolor
    }

    /// Reads `TERM`, `TERM_PROGRAM`, `COLORTERM` and `TMUX` from a dictionary (pass
    /// `ProcessInfo.processInfo.environment`).
    public init(_ environment: [String: String], terminfoTruecolor: Bool? = nil) {
        func value(_ key: String) -> String? {
            guard let v = environment[key], !v.isEmpty else { return nil }
            return v
        }
        self.init(term: value("TERM"), termProgram: value("TERM_PROGRAM"), colorTerm: value("COLORTERM"),
                  tmux: value("TMUX"), terminfoTruecolor: terminfoTruecolor)
    }

    public var inTmux: Bool {
        tmux != nil || (term?.hasPrefix("tmux") ?? false) || termProgram == "tmux"
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
