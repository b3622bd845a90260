import AetherEngine
import ArgumentParser
import Foundation
import TerminalGraphics

struct Caps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the terminal can do (kitty graphics, sixel, colours, cell size, synchronized output, tmux passthrough) and which renderer auto picks.")

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw fail("standard input and output must be a terminal to ask it")
        }
        let report = CapabilityProbe.probe(input: STDIN_FILENO, output: STDOUT_FILENO, environment: TerminalEnvironment(env))
        // TERM and TERM_PROGRAM are printed as found: sanitised like any text from outside.
        for line in report.capabilities.summaryLines { print(TextSanitizer.clean(line)) }
        print("video output (--vo=auto): \(VideoDrivers.resolve("auto", capabilities: report.capabilities)?.name ?? "-")")
        for entry in VideoDrivers.all where entry.name != "null" {
            print("  \(entry.name): \(entry.suits(report.capabilities) ? "suits this terminal" : "not detected")  (\(entry.summary))")
        }
    }
}
