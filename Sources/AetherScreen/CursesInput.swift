import AetherInput
import CNcurses

/// Reading the terminal through ncurses: its inputs as ``TerminalInput`` values (the keys it
/// decoded itself named as ``Key``s, so no caller knows ncurses' codes), the key sequences it
/// is taught beyond the terminfo entry, and bytes handed back to it. Callers hold the TTY lock
/// (`Terminal.withScreen`).
extension Curses {
    /// What ncurses holds now, at most `limit` inputs, without waiting (`nodelay`).
    package static func read(limit: Int) -> [TerminalInput] {
        var batch: [TerminalInput] = []
        var wch: wint_t = 0
        while batch.count < limit {
            let result = get_wch(&wch)
            if result == ERR { break }
            batch.append(result == KEY_CODE_YES ? input(keyCode: Int32(wch)) : .character(UInt32(wch)))
        }
        return batch
    }

    /// A key ncurses decoded itself (`KEY_CODE_YES`), named where the player has a name for it.
    static func input(keyCode code: Int32) -> TerminalInput {
        let key: Key
        switch code {
        case KEY_RESIZE: return .resize
        case KEY_LEFT: key = .left
        case KEY_RIGHT: key = .right
        case KEY_UP: key = .up
        case KEY_DOWN: key = .down
        case KEY_SLEFT: key = .shiftLeft
        case KEY_SRIGHT: key = .shiftRight
        case KEY_PPAGE: key = .pageUp
        case KEY_NPAGE: key = .pageDown
        case KEY_SPREVIOUS: key = .shiftPageUp
        case KEY_SNEXT: key = .shiftPageDown
        case KEY_BACKSPACE: key = .backspace
        case KEY_ENTER: key = .enter
        case KEY_HOME: key = .home
        case KEY_END: key = .end
        case KEY_DC: key = .delete
        case KEY_IC: key = .insert
        case ctrlPlusCode: key = .control("+")
        case ctrlMinusCode: key = .control("-")
        case (KEY_F0 + 1)...(KEY_F0 + 12): key = .function(Int(code - KEY_F0))
        default: return .unnamedKey
        }
        return .key(key)
    }

    /// Key codes ncurses is taught for Ctrl++ and Ctrl+- as xterm's modifyOtherKeys and the
    /// kitty keyboard protocol send them.
    static let ctrlPlusCode: Int32 = 0x7E01
    static let ctrlMinusCode: Int32 = 0x7E02

    /// Teaches ncurses the keys terminals send whatever their terminfo says.
    static func teachKeys() {
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

    /// Hands `bytes` back to ncurses' input, to be read next in their order (its pushback is a
    /// stack: they are pushed last first).
    package static func pushBack(_ bytes: [UInt8]) {
        for byte in bytes.reversed() { _ = ungetch(Int32(byte)) }
    }

    /// Keypad decoding on, and ncurses taught no mouse (its `kmous` key undefined: reports reach
    /// ``ReplyFilter`` as characters, which decodes them). Whether the terminfo entry has a mouse.
    package static func armKeypad() -> Bool {
        keypad(aether_stdscr(), true)
        let hasMouse = aether_terminfo_has_mouse() != 0
        define_key(nil, KEY_MOUSE)
        return hasMouse
    }
}
