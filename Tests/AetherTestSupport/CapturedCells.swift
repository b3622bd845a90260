import Foundation

/// The cells of a `tmux capture-pane -e` screen with their 24-bit colours.
public enum CapturedCells {
    public struct Cell: Equatable {
        public var character: Character
        public var foreground: [Int]?
        public var background: [Int]?
    }

    /// Rows of cells. SGR state carries across lines (tmux writes a change only where it happens);
    /// 256-colour and default colours read as nil.
    public static func parse(_ screen: String) -> [[Cell]] {
        var rows: [[Cell]] = [[]]
        var fg: [Int]?, bg: [Int]?
        var chars = Array(screen)[...]
        while let c = chars.popFirst() {
            if c == "\n" { rows.append([]); continue }
            guard c == "\u{1B}" else {
                rows[rows.count - 1].append(Cell(character: c, foreground: fg, background: bg))
                continue
            }
            guard chars.first == "[" else { continue }
            chars.removeFirst()
            var sequence = ""
            while let n = chars.popFirst() {
                sequence.append(n)
                if n.isLetter { break }
            }
            guard sequence.hasSuffix("m") else { continue }
            let p = sequence.dropLast().split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            var i = 0
            while i < p.count {
                switch p[i] {
                case 0: fg = nil; bg = nil
                case 39: fg = nil
                case 49: bg = nil
                case 38, 48:
                    if i + 4 < p.count, p[i + 1] == 2 {
                        if p[i] == 38 { fg = Array(p[i + 2...i + 4]) } else { bg = Array(p[i + 2...i + 4]) }
                        i += 4
                    } else {
                        if p[i] == 38 { fg = nil } else { bg = nil }
                        i += 2
                    }
                default: break
                }
                i += 1
            }
        }
        return rows
    }
}
