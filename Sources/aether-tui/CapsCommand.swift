import AetherControl
import AetherEngine
import AetherTUI
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import OutputChoice
import TerminalGraphics

struct Caps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the terminal can do (kitty graphics, sixel, colours, cell size, synchronized output, tmux passthrough) and measure the outputs --vo=auto weighs: each one's time a frame and detail shown, and the choice.")

    func run() throws(CommandFailure) {
        let env = ProcessInfo.processInfo.environment
        // The terminal asked: standard input and output when both are one; otherwise (`caps >
        // caps.txt` for a bug report) the controlling terminal, while the report goes to the file.
        var terminal: (input: Int32, output: Int32) = (STDIN_FILENO, STDOUT_FILENO)
        var controlling: Int32 = -1
        defer { if controlling >= 0 { close(controlling) } }
        if isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
            controlling = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard controlling >= 0, isatty(controlling) == 1 else {
                throw .failed("no terminal to ask: standard input and output are not one and there is no controlling terminal")
            }
            terminal = (controlling, controlling)
        }
        let report = CapabilityProbe.probe(input: terminal.input, output: terminal.output, environment: TerminalEnvironment(env), time: .monotonic)
        // TERM and TERM_PROGRAM are printed as found: sanitised like any text from outside.
        for line in report.capabilities.summaryLines { print(TextSanitizer.clean(line)) }
        // `--vo=auto` measured afresh (and remembered): the trial a player runs on its first start
        // here, for a 16:9 picture at 24 fps in the player's layout.
        let caps = report.capabilities, key = TerminalMemory.key(for: caps, environment: env)
        let auto = AutoOutput.choose(capabilities: caps, options: .init(), sourceFPS: 24,
                                     placement: Layout.placement(on: caps, displayAspect: 16.0 / 9, showTelemetry: false),
                                     input: terminal.input, output: terminal.output, environment: env, remeasure: true, clock: .monotonic)
        print("video output (--vo=auto): \(auto?.candidate.label ?? "-") (\(auto?.source.rawValue ?? "-"); \(TextSanitizer.clean(key)))")
        for line in OutputChoice.lines(auto?.figures ?? [], sourceFPS: 24, chosen: auto?.candidate.label) { print(line) }
        for entry in VideoDrivers.all where !entry.isHeadless {
            print("  \(entry.name): \(entry.suits(report.capabilities) ? "suits this terminal" : "not detected")  (\(entry.summary))")
        }
    }
}
