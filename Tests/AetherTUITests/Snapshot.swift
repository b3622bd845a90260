@testable import AetherScreen
@testable import AetherTUI
@testable import AetherThemes
import Foundation
import Testing

/// Text snapshots of a rendered ``CellGrid`` (the way ratatui compares a widget's buffer with
/// expected lines): each row's characters, then under it one letter per cell for the role it was
/// drawn in (`.` never drawn); trailing blanks left out. A theme's snapshot is its legend: the
/// style each role the grid uses gets in that theme.
enum Snapshot {
    static let letters: [ThemeRole: Character] = [
        .title: "T", .status: "s", .time: "t", .progressPlayed: "P", .progressBuffered: "B", .progressEmpty: "E",
        .progressChapter: "C", .badge: "b", .badgeHDR: "h", .menu: "m", .menuSelected: "M", .menuBorder: "|",
        .subtitle: "u", .stats: "x", .statsBorder: "X", .telemetry: "y", .sparkline: "~", .help: "?", .warning: "!",
    ]

    /// The characters and roles of `grid`, a pair of lines per row (blank rows as one empty line).
    static func cells(_ grid: CellGrid) -> String {
        var out: [String] = []
        for row in grid.cells {
            let drawn = row.filter { !$0.continuation }
            let text = String(String.UnicodeScalarView(drawn.map(\.scalar))).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            let roles = String(drawn.map { $0.role.flatMap { letters[$0] } ?? "." })
                .replacingOccurrences(of: "\\.+$", with: "", options: .regularExpression)
            if roles.isEmpty && text.isEmpty { out.append(""); continue }
            out.append(text)
            out.append(roles)
        }
        while out.last == "" { out.removeLast() }
        return out.joined(separator: "\n")
    }

    /// The style in `theme` of every role `grid` uses, in letter order.
    static func legend(_ grid: CellGrid, theme: Theme) -> String {
        let used = Set(grid.cells.flatMap { $0.compactMap(\.role) })
        return used.sorted { letters[$0]! < letters[$1]! }
            .map { "\(letters[$0]!) \($0.rawValue): \(describe(theme[$0]))" }
            .joined(separator: "\n")
    }

    static func describe(_ style: ThemeStyle) -> String {
        var parts = ["fg \(describe(style.foreground))", "bg \(describe(style.background))"]
        if style.bold { parts.append("bold") }
        if style.dim { parts.append("dim") }
        if style.reverse { parts.append("reverse") }
        if style.underline { parts.append("underline") }
        return parts.joined(separator: " ")
    }

    static func describe(_ color: ThemeColor) -> String {
        switch color {
        case .terminalDefault: "default"
        case .index(let n): "\(n)"
        case .rgb(let r, let g, let b): String(format: "#%02x%02x%02x", r, g, b)
        }
    }

    /// The bundled themes the snapshots are taken in: the default, and mono (attributes only, the
    /// form every theme takes under NO_COLOR).
    static let themes = ["default", "mono"]

    /// Expects `actual` to be `expected`; on a difference, records the lines that differ
    /// (`-` expected, `+` rendered) and the whole render, ready to paste.
    static func expect(_ actual: String, _ expected: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard actual != expected else { return }
        let a = actual.components(separatedBy: "\n"), e = expected.components(separatedBy: "\n")
        var diff: [String] = []
        for i in 0..<max(a.count, e.count) {
            let want = i < e.count ? e[i] : nil, got = i < a.count ? a[i] : nil
            guard want != got else { continue }
            if let want { diff.append("\(i + 1) - \(want)") }
            if let got { diff.append("\(i + 1) + \(got)") }
        }
        Issue.record("snapshot \(name) differs:\n\(diff.joined(separator: "\n"))\n--- rendered:\n\(actual)\n---", sourceLocation: sourceLocation)
    }
}
