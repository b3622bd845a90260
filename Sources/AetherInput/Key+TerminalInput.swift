/// Keys as the terminal's input names them.
extension Key {
    /// The key ncurses read as `input` (nil: a resize, a mouse report, a reply, or a key without a name).
    package init?(_ input: TerminalInput) {
        switch input {
        case .key(let key):
            self = key
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
        case .resize, .unnamedKey, .mouse, .reply:
            return nil
        }
    }
}
