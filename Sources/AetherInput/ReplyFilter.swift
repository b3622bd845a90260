/// One unit of input as ncurses' `get_wch` returns it (`Curses.read(limit:)` names it).
package enum TerminalInput: Equatable, Sendable {
    /// A character (a Unicode scalar value, or a byte in the C locale).
    case character(UInt32)
    /// A key ncurses decoded itself (`KEY_CODE_YES`: arrows, Home, F1 …).
    case key(Key)
    /// The terminal's size changed (ncurses' `KEY_RESIZE`).
    case resize
    /// A key ncurses decoded that has no name here (F13, a modifier the terminfo names): input
    /// like any key (the bar shows), bound to nothing.
    case unnamedKey
    /// A mouse report (``ReplyFilter`` decodes them; ncurses is taught no mouse).
    case mouse(MouseReport)
    /// A reply the host asked for while running, whole (`ESC [ ? … S`: XTSMGRAPHICS, the sixel
    /// limits the outer terminal says through tmux after a resize, for the probe's parser;
    /// `ESC [ ? … c`: DA1, the outer terminal's answer to a delivery check through tmux).
    case reply([UInt8])
}

/// Keeps terminal replies out of the keys.
///
/// The capability probe waits 250 ms for the terminal's answers; over a slow link they arrive
/// later, after ncurses owns the input, and ncurses — knowing no key that starts `ESC [ ?` —
/// hands them over as ESC followed by plain characters: `ESC [?63;1;2;4c` would be read as
/// `[` (slower), `?` (help), `6`…, `c` (subtitle menu). Every escape sequence ncurses did not
/// decode as a key is therefore swallowed whole here, whatever it is:
/// - CSI (`ESC [` or C1 `U+009B`) parameters, intermediates and final byte: DA1 `CSI ? … c`,
///   window reports `CSI … t`, cursor reports `CSI … R`, XTSMGRAPHICS `CSI ? … S`, DSR, DECRPM,
///   and unknown keys (Ctrl+arrows on a terminfo that lacks them);
/// - control strings up to ST (`ESC \`), C1 ST or BEL: DCS (`ESC P`, e.g. XTGETTCAP and DECRQSS
///   answers), OSC (`ESC ]`, colour queries), kitty's APC graphics replies (`ESC _G…`), PM, SOS;
/// - SS3 (`ESC O x`).
///
/// XTSMGRAPHICS and DA1 answers (`CSI ? … S`, `CSI ? … c`, at most ``maxReplyBytes``) are
/// handed on whole as ``TerminalInput/reply(_:)``: the host asks for the sixel limits again on
/// a resize, and inside tmux checks with a DA1 that its pictures arrived. Mouse reports are the
/// other kind of sequence handed on: SGR (`CSI < Cb ; Cx ; Cy M|m`) and X10
/// (`CSI M` + three characters) become ``TerminalInput/mouse(_:)`` (``MouseReport``: numbers
/// clamped, malformed ones swallowed, a run of motion reports in one read coalesced to its last).
///
/// A lone ESC is the Escape key: ncurses returns ESC with nothing after it only once its escape
/// delay has passed. ESC followed by anything else (no reply starts that way) is the Escape key
/// and then that key: Escape then `q` typed quickly still quits. Two safeguards cover a reply split across reads:
/// - a sequence cut off at the end of a read continues in the next one, unless no input came
///   for ``staleAfter`` seconds (then it is dropped and typing works again: a lost terminator
///   costs at most the keys typed within a second of it);
/// - a read that starts with a sequence introducer (`[`, `]`, `P`, `_`, `^`, `X`, `O`) and has
///   more after it, within ``splitWindow`` seconds of a lone ESC, continues that ESC: keys are
///   typed one per read, a reply arrives as one.
package struct ReplyFilter {
    /// Seconds without input after which an unfinished sequence is dropped.
    static let staleAfter = 1.0
    /// Seconds after a lone ESC in which a read starting with an introducer continues it.
    static let splitWindow = 0.5
    private enum State: Equatable {
        case ground
        case escape
        case csi
        case ss3
        case string
        case stringEscape
        /// After `CSI M`: the three characters of an X10 mouse report.
        case x10
    }

    private var state = State.ground
    /// The CSI sequence being read (mouse reports are decoded from it).
    private var csi = CSIParameters()
    /// Its parameter and intermediate bytes, up to ``maxReplyBytes`` (replies handed on).
    private var csiBytes: [UInt8] = []
    /// The longest reply handed on (`?2;0;4096;4096` is 14 bytes); a longer one is swallowed.
    static let maxReplyBytes = 32
    /// The X10 report's characters so far.
    private var x10: [UInt32] = []
    private var lastInput = -Double.infinity
    private var loneEscapeAt: Double?

    package init() {}

    private static let esc: UInt32 = 0x1B

    /// Filters one read's worth of input (everything available now); `now` in seconds.
    /// Returns the input that is the user's.
    package mutating func feed(_ batch: [TerminalInput], now: Double) -> [TerminalInput] {
        guard !batch.isEmpty else { return [] }
        if state != .ground, now - lastInput > Self.staleAfter { state = .ground }
        if state == .ground, let at = loneEscapeAt, now - at <= Self.splitWindow, batch.count >= 2,
           case .character(let first) = batch[0], Self.introducers.contains(first) {
            state = .escape
        }
        loneEscapeAt = nil
        lastInput = now
        var out: [TerminalInput] = []
        var i = 0
        while i < batch.count {
            let input = batch[i]
            let isLast = i == batch.count - 1
            if step(input, isLast: isLast, now: now, into: &out) { i += 1 }
        }
        return Self.coalescingMotion(out)
    }

    /// `inputs` with every motion report that another one follows at once dropped: the pointer
    /// is where the last one says (a read full of motion costs one move, not thousands).
    static func coalescingMotion(_ inputs: [TerminalInput]) -> [TerminalInput] {
        var out: [TerminalInput] = []
        out.reserveCapacity(inputs.count)
        for input in inputs {
            if case .mouse(let m) = input, m.action == .motion, case .mouse(let previous)? = out.last,
               previous.action == .motion, previous.button == m.button {
                out[out.count - 1] = input
            } else {
                out.append(input)
            }
        }
        return out
    }

    private mutating func startCSI() {
        state = .csi
        csi = CSIParameters()
        csiBytes.removeAll(keepingCapacity: true)
    }

    /// `CSI ? … S` or `CSI ? … c` read whole and within the bound: the bytes of the reply.
    private func graphicsReply(final: UInt32) -> [UInt8]? {
        guard final == 0x53 || final == 0x63, csiBytes.first == 0x3F, csiBytes.count <= Self.maxReplyBytes else { return nil }
        return [0x1B, 0x5B] + csiBytes + [UInt8(final)]
    }

    /// Introducers after ESC that start a sequence: CSI, SS3, OSC, DCS, SOS, PM, APC.
    private static let introducers: Set<UInt32> = [0x5B, 0x4F, 0x5D, 0x50, 0x58, 0x5E, 0x5F]

    /// Consumes `input` in the current state; returns false when the state changed and `input`
    /// must be looked at again (it ended a malformed sequence and may start something else).
    private mutating func step(_ input: TerminalInput, isLast: Bool, now: Double, into out: inout [TerminalInput]) -> Bool {
        switch state {
        case .ground:
            guard case .character(let c) = input else { out.append(input); return true }
            switch c {
            case Self.esc:
                if isLast {
                    out.append(input)           // the Escape key
                    loneEscapeAt = now
                } else {
                    state = .escape
                }
            case 0x9B: startCSI()                                               // C1 CSI
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F: state = .string                  // C1 DCS SOS OSC PM APC
            default: out.append(input)
            }
            return true

        case .escape:
            guard case .character(let c) = input else { state = .ground; return false }  // Alt+function key
            switch c {
            case 0x5B: startCSI()
            case 0x4F: state = .ss3
            case 0x5D, 0x50, 0x58, 0x5E, 0x5F: state = .string
            case Self.esc:
                // ESC ESC: the first was the Escape key; the second starts again.
                out.append(.character(Self.esc))
                state = .ground
                return false
            default:
                // No reply starts this way: the Escape key, then a key typed within ncurses'
                // escape delay (Escape then q, quickly), or Alt+key; both count as typed.
                out.append(.character(Self.esc))
                state = .ground
                return false
            }
            return true

        case .csi:
            guard case .character(let c) = input else { state = .ground; return false }
            switch c {
            case 0x20...0x3F:
                csi.add(c)
                if csiBytes.count <= Self.maxReplyBytes { csiBytes.append(UInt8(c)) }
                return true                     // parameters and intermediates
            case 0x4D where csi.isEmpty:
                state = .x10                    // CSI M: an X10 mouse report's three characters follow
                x10.removeAll()
                return true
            case 0x40...0x7E:
                state = .ground                 // final byte: the whole sequence is swallowed…
                if let report = csi.mouseReport(final: c) { out.append(.mouse(report)) }   // …or it is the mouse
                else if let reply = graphicsReply(final: c) { out.append(.reply(reply)) }  // …or a reply asked for
                return true
            default:
                state = .ground                 // malformed: drop what came, look at this again
                return false
            }

        case .ss3:
            state = .ground
            if case .character(let c) = input, (0x20...0x7E).contains(c) { return true }
            return false

        case .string:
            if case .character(let c) = input {
                if c == 0x07 || c == 0x9C { state = .ground; return true }      // BEL, C1 ST
                if c == Self.esc { state = .stringEscape; return true }
            }
            return true

        case .x10:
            // Any character (X10 values run to 255 and beyond in UTF-8 terminals); a decoded key
            // is not part of a report: drop what came and look at it again.
            guard case .character(let c) = input else { state = .ground; return false }
            x10.append(c)
            if x10.count == 3 {
                state = .ground
                if let report = MouseReport.x10(code: x10[0], column: x10[1], row: x10[2]) { out.append(.mouse(report)) }
            }
            return true

        case .stringEscape:
            state = .ground
            if input == .character(0x5C) { return true }                          // ESC \ = ST
            // ESC + anything else ends the string and starts a new escape.
            state = .escape
            return false
        }
    }
}
