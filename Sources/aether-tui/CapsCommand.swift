import AetherEngine
import ArgumentParser
import Foundation
import TerminalGraphics

struct Caps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the terminal can do (kitty graphics, sixel, colours, cell size, synchronized output, tmux passthrough) and which renderer auto picks.")

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        // The terminal asked: standard input and output when both are one; otherwise (`caps >
        // caps.txt` for a bug report) the controlling terminal, while the report goes to the file.
        var terminal: (input: Int32, output: Int32) = (STDIN_FILENO, STDOUT_FILENO)
        var controlling: Int32 = -1
        defer { if controlling >= 0 { close(controlling) } }
        if isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
            controlling = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard controlling >= 0, isatty(controlling) == 1 else {
                throw fail("no terminal to ask: standard input and output are not one and there is no controlling terminal")
            }
            terminal = (controlling, controlling)
        }
        let report = CapabilityProbe.probe(input: terminal.input, output: terminal.output, environment: TerminalEnvironment(env))
        // TERM and TERM_PROGRAM are printed as found: sanitised like any text from outside.
        for line in report.capabilities.summaryLines { print(TextSanitizer.clean(line)) }
        print("video output (--vo=auto): \(VideoDrivers.resolve("auto", capabilities: report.capabilities)?.name ?? "-")")
        for entry in VideoDrivers.all where entry.name != "null" {
            print("  \(entry.name): \(entry.suits(report.capabilities) ? "suits this terminal" : "not detected")  (\(entry.summary))")
        }
    }
}
