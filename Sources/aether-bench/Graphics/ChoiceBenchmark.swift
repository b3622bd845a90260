import ArgumentParser
import Foundation
import OutputChoice

/// `aether-bench choice`: `--vo=auto` on terminals of known speed. The player starts on a pty
/// that plays a terminal's part (``PtyTerminal``): xterm with sixel, kitty (shared memory
/// answered, octants by name), and a slow sixel terminal whose reads are throttled. Each is
/// started twice with a state directory of its own: the first start measures (the trial's DA1
/// queries are counted on the terminal's side) and remembers; the second must measure nothing
/// and choose the same. The choice is checked against the rule over the figures remembered.
struct ChoiceBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "choice",
        abstract: "--vo=auto's measured choice on pty terminals of known speed (xterm sixel, kitty, a throttled slow one).")

    @Option(help: ArgumentHelp("The aether-tui binary (default: next to aether-bench).", valueName: "path")) var player: String?
    @Option(help: "Scratch directory (the clip, each profile's state directory).") var workDir = "/tmp/aether-bench-choice"
    @Option(help: "The slow terminal's reads, bytes a second.") var slowRate = 300_000.0
    @Option(help: "Seconds of the clip each start plays.") var seconds = 2

    struct Profile {
        var name: String
        var terminal: PtyTerminal
        /// What a capability-only rule (the order kitty, sixel, cells) would have drawn with.
        var byCapability: String
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let binary = player ?? URL(fileURLWithPath: EngineBenchmark.executablePath()).deletingLastPathComponent().appendingPathComponent("aether-tui").path
        let clip = try FrameSet.grainyClip(directory: workDir)
        var xterm = PtyTerminal(columns: 160, rows: 48, cellWidth: 6, cellHeight: 13)
        xterm.version = "XTerm(379)"
        var kitty = PtyTerminal(columns: 160, rows: 48, cellWidth: 9, cellHeight: 20)
        kitty.kitty = true
        kitty.version = "kitty(0.35.2)"
        kitty.attributes = "\u{1B}[?62;c"   // kitty's: no sixel
        var slow = xterm
        slow.version = "slow(1)"
        slow.bytesPerSecond = slowRate
        let profiles = [Profile(name: "xterm (sixel)", terminal: xterm, byCapability: "sixel"),
                        Profile(name: "kitty", terminal: kitty, byCapability: "kitty"),
                        Profile(name: "slow (\(Int(slowRate / 1000)) kB/s reads)", terminal: slow, byCapability: "sixel")]
        print("--vo=auto on pty terminals, \(clip) (1080p24 grain), \(seconds) s a start, 160×48 cells")
        var failures: [String] = []
        for profile in profiles {
            let state = "\(workDir)/state-\(profile.name.prefix(5).filter(\.isLetter))"
            try? FileManager.default.removeItem(atPath: state)
            var terminal = profile.terminal
            terminal.environment["XDG_STATE_HOME"] = state
            let argv = [binary, clip, "--vo=auto", "--ao=null", "--length=\(seconds)"]
            let first = try terminal.run(argv)
            let memory = TerminalMemory.standard(environment: ["XDG_STATE_HOME": state])
            guard let (key, entry) = memory.entries().first else {
                failures.append("\(profile.name): nothing remembered (status \(first.status))")
                continue
            }
            let second = try terminal.run(argv)
            let again = memory.entry(for: key)
            let byRule = OutputChoice.choose(entry.figures, sourceFPS: 24)?.label
            print("\n\(profile.name)  [\(key)]")
            for line in OutputChoice.lines(entry.figures, sourceFPS: 24, chosen: entry.choice) { print(line) }
            print(String(format: "  chosen: %@ (by capability alone: %@); DA1 read: %d at the first start, %d at the second (remembered: %@)",
                         entry.choice ?? "-", profile.byCapability, first.attributeQueries, second.attributeQueries,
                         again?.choice == entry.choice && second.attributeQueries < first.attributeQueries ? "yes" : "NO"))
            if entry.choice == nil || entry.choice != byRule { failures.append("\(profile.name): chose \(entry.choice ?? "-"), the rule says \(byRule ?? "-")") }
            if second.attributeQueries >= first.attributeQueries { failures.append("\(profile.name): measured again at the second start") }
            if first.status != 0 || second.status != 0 { failures.append("\(profile.name): exit \(first.status), \(second.status)") }
        }
        for failure in failures { print("FAILED: \(failure)") }
        if !failures.isEmpty { throw ExitCode.failure }
    }
}
