import Foundation
import OutputChoice

/// `terminals`: `$XDG_STATE_HOME/aether-tui/terminals.json`, the figures `--vo=auto` remembers
/// per terminal (``TerminalMemory/entries(in:)``). What comes through is what a remembered
/// terminal's start uses without measuring: a bounded list of terminals, each with a known
/// output's finite, positive figures and a choice among them; rescaled to a layout and chosen
/// among, it still names one of them.
enum TerminalsCheck {
    static func run(_ bytes: [UInt8]) {
        let entries = TerminalMemory.entries(in: Data(bytes))
        precondition(entries.count <= TerminalMemory.maximumTerminals * 2, "terminals past the budget")
        for (key, entry) in entries {
            precondition(key.count <= 120 && key.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) }, "a key no terminal has")
            precondition(!entry.figures.isEmpty && entry.figures.count <= 16)
            precondition(entry.choice.map { c in entry.figures.contains { $0.label == c } } ?? true, "a choice among no figure")
            var scaled: [OutputFigure] = []
            for figure in entry.figures {
                precondition(OutputCandidate(label: figure.label) != nil && (1...100_000_000).contains(figure.pixels))
                precondition(figure.milliseconds.isFinite && figure.milliseconds > 0)
                let resized = figure.scaled(toPixels: 1280 * 720)
                precondition(resized.milliseconds.isFinite && resized.milliseconds > 0 && resized.shownDetail(sourceFPS: 24).isFinite)
                scaled.append(resized)
            }
            for fps in [1.0, 24, 60] {
                let chosen = OutputChoice.choose(scaled, sourceFPS: fps, keeping: entry.choice)
                precondition(chosen.map { c in scaled.contains { $0.label == c.label } } ?? false, "the choice names no figure")
                _ = OutputChoice.lines(scaled, sourceFPS: fps, chosen: chosen?.label)
            }
        }
    }
}
