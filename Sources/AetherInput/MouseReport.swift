/// One mouse report from the terminal, decoded by ``ReplyFilter``: SGR (mode 1006,
/// `CSI < Cb ; Cx ; Cy M` on press and motion, `m` on release) or the legacy X10 encoding
/// (`CSI M` and three bytes, each value + 32) of terminals without 1006.
///
/// The player turns on any-motion tracking (1003) with SGR encoding itself (ncurses enables
/// only press and release, mode 1000, for xterm's terminfo): hovering over the transport bar
/// shows the scrub preview. Reports are input from outside: every number is clamped (at most
/// ``maxNumber``; coordinates start at 0 and stop at ``maxCoordinate``), a report with more
/// fields or longer parameters than one can have is swallowed, not read as keys, and a read's
/// motion reports are coalesced to the last of each run (a flood of motion costs one move).
package struct MouseReport: Equatable, Sendable {
    package enum Action: Equatable, Sendable {
        case press
        case release
        /// The pointer moved (with `button` held, or none: 3).
        case motion
        case wheelUp
        case wheelDown
    }

    package var action: Action
    /// 0 left, 1 middle, 2 right, 3 none (motion without a button; X10 release).
    package var button: Int
    /// Cell column and row, from 0.
    package var column: Int
    package var row: Int

    /// Largest value a parameter keeps (more digits are clamped to it).
    static let maxNumber = 99_999
    /// Largest cell coordinate (a screen is at most ``ReplyLimits``' few thousand cells).
    static let maxCoordinate = 9_999
    /// Parameter bytes an SGR report may have (`255;9999;9999` is 13).
    static let maxParameterBytes = 24

    /// An SGR report: `fields` are Cb, Cx, Cy as sent (coordinates from 1); `final` `M`
    /// (press, motion, wheel) or `m` (release). Nil for what the player does not use
    /// (horizontal wheel, buttons 6–11) or a malformed report.
    static func sgr(_ fields: [Int], final: UInt32) -> MouseReport? {
        guard fields.count == 3, final == 0x4D || final == 0x6D else { return nil }
        return decode(code: fields[0], column: fields[1] - 1, row: fields[2] - 1, released: final == 0x6D)
    }

    /// An X10 report: the three values after `CSI M`, each + 32 (coordinates from 1).
    static func x10(code: UInt32, column: UInt32, row: UInt32) -> MouseReport? {
        let values = [code, column, row].map { Int(min(UInt32(maxNumber), $0)) - 32 }
        guard values.allSatisfy({ $0 >= 0 }) else { return nil }
        // X10 has no release per button: button bits 3 on a non-motion report.
        let released = values[0] & 0b1100011 == 3
        return decode(code: values[0], column: values[1] - 1, row: values[2] - 1, released: released)
    }

    private static func decode(code: Int, column: Int, row: Int, released: Bool) -> MouseReport? {
        guard (0...255).contains(code) else { return nil }
        let x = min(maxCoordinate, max(0, column)), y = min(maxCoordinate, max(0, row))
        let button = code & 3
        if code & 128 != 0 { return nil }                          // buttons 8–11
        if code & 64 != 0 {                                         // wheel: 4 up, 5 down, 6–7 sideways
            switch button {
            case 0: return MouseReport(action: .wheelUp, button: 3, column: x, row: y)
            case 1: return MouseReport(action: .wheelDown, button: 3, column: x, row: y)
            default: return nil
            }
        }
        if code & 32 != 0 { return MouseReport(action: .motion, button: button, column: x, row: y) }
        return MouseReport(action: released ? .release : .press, button: button, column: x, row: y)
    }

    /// Turns on press, release and any-motion reports in SGR encoding: 1000 then 1002 then 1003
    /// (a terminal keeps the last it knows), 1006. Off again: the restore sequence (`?1000l`
    /// `?1002l` `?1003l` `?1006l`) on every way out.
    package static let enableSequence = "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1003h\u{1B}[?1006h"
    /// The same modes off.
    package static let disableSequence = "\u{1B}[?1006l\u{1B}[?1003l\u{1B}[?1002l\u{1B}[?1000l"
}

/// The parameters of a CSI sequence as ``ReplyFilter`` reads them, enough to tell a mouse
/// report: whether it starts with `<` (SGR mouse), up to 3 clamped numbers, and whether it broke
/// the shape a report has (then it is swallowed like any other reply).
struct CSIParameters: Equatable {
    private(set) var sgrMouse = false
    private(set) var fields: [Int] = []
    private(set) var bytes = 0
    private(set) var malformed = false
    private var current = 0
    private var digits = 0

    mutating func add(_ c: UInt32) {
        bytes += 1
        if bytes > MouseReport.maxParameterBytes { malformed = true }
        if bytes == 1, c == 0x3C { sgrMouse = true; return }
        switch c {
        case 0x30...0x39:
            current = min(MouseReport.maxNumber, current * 10 + Int(c - 0x30))
            digits += 1
        case 0x3B:
            endField()
        default:
            malformed = true
        }
    }

    private mutating func endField() {
        // Every field of a report has digits; a fourth field no report has.
        if fields.count < 3, digits > 0 { fields.append(current) } else { malformed = true }
        current = 0
        digits = 0
    }

    /// The mouse report this sequence is with `final`, if it is one.
    mutating func mouseReport(final: UInt32) -> MouseReport? {
        guard sgrMouse, !malformed else { return nil }
        endField()
        guard !malformed else { return nil }
        return MouseReport.sgr(fields, final: final)
    }

    /// Nothing between `CSI` and its final byte (`CSI M` starts an X10 mouse report).
    var isEmpty: Bool { bytes == 0 }
}
