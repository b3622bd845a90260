import AetherEngine
import AetherTUI
import TerminalGraphics

/// The `ass` fuzz target's body (aether-fuzz): bytes are an ASS header, a NUL, then one event per
/// line (FFmpeg's `ReadOrder,Layer,Style,…,Text` or a `Dialogue:` line). Every event is parsed
/// and all are placed in three picture sizes; what is promised traps when broken: every line
/// inside the picture, no control, escape, bidi or zero-width character, no override block.
enum ASSCellCheck {
    static func run(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.count
        let script = ASSScript.parse(String(decoding: bytes[..<split], as: UTF8.self))
        let rest = split < bytes.count ? bytes[(split + 1)...] : []
        let events = rest.split(separator: UInt8(ascii: "\n")).prefix(SubtitleStore.maxActive)
        let cues = events.enumerated().map { n, line -> SubtitleCue in
            let styled = ASSEvent.parse(String(decoding: line, as: UTF8.self), script: script)
            return SubtitleCue(start: Double(n), end: Double(n) + 1, content: .text(styled.plainText), styled: styled)
        }
        for picture in [CellRect(column: 0, row: 0, width: 80, height: 24), CellRect(column: 3, row: 1, width: 7, height: 3),
                        CellRect(column: 10, row: 5, width: 200, height: 60)] {
            for line in SubtitleCellLayout.place(cues, in: picture) {
                precondition(line.row >= picture.row && line.row < picture.endRow, "a line off the picture's rows")
                precondition(line.column >= picture.column && line.column + line.width <= picture.endColumn, "a line off the picture's columns")
                precondition(!line.text.contains("{"), "an override block on screen")
                for scalar in line.text.unicodeScalars {
                    let v = scalar.value
                    precondition(v >= 0x20 && !(0x7F...0x9F).contains(v), "a control character")
                    precondition(!(0x202A...0x202E).contains(v) && !(0x2066...0x2069).contains(v) && !(0x200B...0x200F).contains(v),
                                 "a bidi or zero-width character")
                }
            }
        }
    }
}
