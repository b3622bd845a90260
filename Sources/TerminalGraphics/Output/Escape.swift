import AetherBase

/// Escape sequences used by the renderers and the probe. Coordinates in the API are 0-based
/// cells; the 1-based conversion happens here and nowhere else.
public enum Escape {
    public static let esc: UInt8 = 0x1B

    /// `CSI ?2026h`: begin synchronized update (the terminal holds the screen until `l`).
    public static let beginSynchronizedUpdate: [UInt8] = Array("\u{1B}[?2026h".utf8)
    /// `CSI ?2026l`: end synchronized update.
    public static let endSynchronizedUpdate: [UInt8] = Array("\u{1B}[?2026l".utf8)
    /// `CSI 0m`: reset colours and attributes.
    public static let resetAttributes: [UInt8] = Array("\u{1B}[0m".utf8)

    /// DECSC / DECRC: save and restore the cursor position and attributes (so ncurses' idea of
    /// them stays true around a picture).
    public static let saveCursor: [UInt8] = Array("\u{1B}7".utf8)
    public static let restoreCursor: [UInt8] = Array("\u{1B}8".utf8)

    /// XTWINOPS 22 / 23: push the window and icon titles on the terminal's stack, pop them back.
    public static let pushTitle: [UInt8] = Array("\u{1B}[22;0t".utf8)
    public static let popTitle: [UInt8] = Array("\u{1B}[23;0t".utf8)

    /// OSC 2: sets the window title to `text`, which must hold no control character (the
    /// caller cleans it: BEL or ESC would end the sequence early). Ended by ST, as every other
    /// string sequence the player sends is (a reader that knows only ST would otherwise take the
    /// bytes up to the next picture's ST as the title).
    public static func windowTitle(_ text: String) -> [UInt8] {
        Array("\u{1B}]2;".utf8) + Array(text.utf8) + Array("\u{1B}\\".utf8)
    }

    /// ECH: erases `n` cells from the cursor (they become blank in the current background).
    public static func eraseCharacters(_ n: Int) -> [UInt8] {
        Array("\u{1B}[\(max(1, n))X".utf8)
    }

    /// CUP: moves the cursor to a 0-based cell.
    public static func cursorPosition(column: Int, row: Int) -> [UInt8] {
        Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
    }

    /// CUP into a writer (hot path); at most 2 + 5 + 1 + 5 + 1 bytes plus packing slack.
    @inline(__always) static func writeCursorPosition(_ w: inout ByteWriter, column: Int, row: Int) {
        w.bytes(esc, UInt8(ascii: "["))
        w.decimal(row + 1)
        w.byte(UInt8(ascii: ";"))
        w.decimal(column + 1)
        w.byte(UInt8(ascii: "H"))
    }

    /// CUF: moves the cursor `n` cells right.
    @inline(__always) static func writeCursorForward(_ w: inout ByteWriter, _ n: Int) {
        w.bytes(esc, UInt8(ascii: "["))
        if n != 1 { w.decimal(n) }
        w.byte(UInt8(ascii: "C"))
    }
}
