import AetherControl
import AetherEngine
import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The entry point: the config file's options are put in front of the command line, then the
/// parser takes over.
@main
enum Main {
    static func main() async {
        // First: this may run the program again with the Swift backtracer's settings.
        let runBacktracer = CrashReporting.prepareBacktracer()
        // Before the player's threads: a few arenas, not one per thread (see MemoryPolicy).
        MemoryPolicy.limitArenas()
        // Libraries of another major version than the build's: one line, before anything
        // touches the terminal or calls into them.
        if let mismatch = FFmpegVersions.incompatibility { exit(with: .failed(mismatch)) }
        let arguments = Array(CommandLine.arguments.dropFirst())
        CrashReporting.arm(arguments: arguments, environment: ProcessInfo.processInfo.environment, runBacktracer: runBacktracer)
        if arguments == ["--list-options"] {
            StandardStream.write(CommonOptionsHelp.list)
            exit(0)
        }
        do {
            if let shell = try CompletionScript.requested(arguments) {
                StandardStream.write(CompletionScript.make(shell))
                exit(0)
            }
        } catch { exit(with: error) }
        if arguments == ["--version"] || arguments == ["--version", "--json"] || arguments == ["--json", "--version"] {
            StandardStream.write(arguments.contains("--json") ? VersionReport.json : VersionReport.text)
            exit(0)
        }
        let expanded = ConfigArguments.expand(Array(CommandLine.arguments.dropFirst()),
                                              environment: ProcessInfo.processInfo.environment)
        if let error = expanded.error { exit(with: .usage(error)) }
        for warning in expanded.warnings { warn(warning) }
        ConfigArguments.startupWarnings = expanded.warnings
        ConfigArguments.typed = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try AetherTUICommand.parseAsRoot(expanded.arguments)
            if var command = command as? AsyncParsableCommand { try await command.run() } else { try command.run() }
        } catch let failure as CommandFailure {
            // What a command's run threw: its line, and the status its kind has.
            exit(with: failure)
        } catch {
            // A bad option or usage is status 1, as in mpv (ArgumentParser's own is 64, EX_USAGE).
            if AetherTUICommand.exitCode(for: error) == .validationFailure {
                StandardStream.error((AetherTUICommand.fullMessage(for: error) + "\n"))
                exit(ExitStatus.failed.rawValue)
            }
            AetherTUICommand.exit(withError: error)
        }
    }
}

struct AetherTUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: PlayerIdentity.name,
        abstract: "A terminal media player: video as kitty or sixel images or character cells, sound through ALSA.",
        discussion: CommonOptionsHelp.discussion,
        version: PlayerIdentity.buildVersion,
        subcommands: [Play.self, Probe.self, Inspect.self, Caps.self, Extract.self, Download.self],
        defaultSubcommand: Play.self)
}

/// Says `failure`'s line on standard error (`aether-tui: line`, sanitised) and ends the program
/// with its status (``CommandFailure/status``): the one place a command's failure is printed.
func exit(with failure: CommandFailure) -> Never {
    if let line = failure.line { StandardStream.say(line) }
    exit(failure.status)
}

/// Prints `aether-tui: warning: message` (or another `kind` of note) on stderr; the run goes on.
func warn(_ message: String, kind: String = "warning") {
    StandardStream.say("\(kind): \(message)")
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("log-file"), help: ArgumentHelp("Write FFmpeg's and the player's diagnostics to this file.", valueName: "path"), completion: .file())
    var logFile: String?

    func configureLogging() throws(CommandFailure) {
        do { try AppLog.configure(path: logFile) } catch {
            throw .failed("cannot open log file '\(logFile ?? "")': \(error.systemReason)")
        }
    }
}
