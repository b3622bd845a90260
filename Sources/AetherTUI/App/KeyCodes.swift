import AetherInput
import CNcurses

/// Keys as ncurses reads them.
extension Key {
    /// Key codes ncurses is taught for Ctrl++ and Ctrl+- as xterm's modifyOtherKeys and the
    /// kitty keyboard protocol send them.
    static let ctrlPlusCode: Int32 = 0x7E01
    static let ctrlMinusCode: Int32 = 0x7E02

    /// The key ncurses read as `input` (nil: a mouse report, a reply, or no key).
    init?(_ input: TerminalInput) {
        switch input {
        case .functionKey(let code):
            switch code {
            case KEY_LEFT: self = .left
            case KEY_RIGHT: self = .right
            case KEY_UP: self = .up
            case KEY_DOWN: self = .down
            case KEY_SLEFT: self = .shiftLeft
            case KEY_SRIGHT: self = .shiftRight
            case KEY_PPAGE: self = .pageUp
            case KEY_NPAGE: self = .pageDown
            case KEY_SPREVIOUS: self = .shiftPageUp
            case KEY_SNEXT: self = .shiftPageDown
            case KEY_BACKSPACE: self = .backspace
            case KEY_ENTER: self = .enter
            case KEY_HOME: self = .home
            case KEY_END: self = .end
            case KEY_DC: self = .delete
            case KEY_IC: self = .insert
            case Key.ctrlPlusCode: self = .control("+")
            case Key.ctrlMinusCode: self = .control("-")
            case (KEY_F0 + 1)...(KEY_F0 + 12): self = .function(Int(code - KEY_F0))
            default: return nil
            }
        case .character(let code):
            switch code {
            case 27: self = .escape
            case 127, 8: self = .backspace
            case 10, 13: self = .enter
            case 9: self = .tab
            // Ctrl+letter; 0x1F is what terminals send for Ctrl+- (and Ctrl+_ , Ctrl+/).
            case 1...26: self = .control(Character(Unicode.Scalar(code + 0x60)!))
            case 0x1F: self = .control("-")
            default:
                guard code >= 0x20, let scalar = Unicode.Scalar(code) else { return nil }
                self = .character(Character(scalar))
            }
        case .mouse, .reply:
            return nil
        }
    }

    /// Teaches ncurses the keys terminals send whatever their terminfo says. Inside `withScreen`.
    static func teachCurses() {
        // Shift+arrows as tmux and xterm send them, whatever the terminfo says.
        define_key("\u{1B}[1;2D", KEY_SLEFT)
        define_key("\u{1B}[1;2C", KEY_SRIGHT)
        // Shift+PgUp/PgDn as xterm, tmux and kitty send them.
        define_key("\u{1B}[5;2~", KEY_SPREVIOUS)
        define_key("\u{1B}[6;2~", KEY_SNEXT)
        // Home/End in every common encoding, whatever terminfo says (tmux sends CSI 1~/4~
        // under TERM=xterm-256color, rxvt CSI 7~/8~, xterm CSI H/F or SS3 H/F).
        for seq in ["\u{1B}[H", "\u{1B}OH", "\u{1B}[1~", "\u{1B}[7~"] { define_key(seq, KEY_HOME) }
        for seq in ["\u{1B}[F", "\u{1B}OF", "\u{1B}[4~", "\u{1B}[8~"] { define_key(seq, KEY_END) }
        // Ctrl++ and Ctrl+- (audio delay) as xterm's modifyOtherKeys and kitty report them.
        for seq in ["\u{1B}[27;5;43~", "\u{1B}[43;5u"] { define_key(seq, ctrlPlusCode) }
        for seq in ["\u{1B}[27;5;45~", "\u{1B}[45;5u"] { define_key(seq, ctrlMinusCode) }
    }
}
