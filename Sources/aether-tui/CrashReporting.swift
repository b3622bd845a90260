import AetherBase
import AetherControl
import AetherEngine
import CTerminal
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Crash reports: on a fatal signal, CTerminal's handler restores the terminal, writes a report
/// into `$XDG_STATE_HOME/aether-tui/crashes/` and says where in one line on the standard error
/// (CrashReport.h), then the process dies of the signal. This prepares what the report says
/// (the version, the options, what is playing) and the Swift runtime's backtracer, whose output
/// goes into the report after ours.
enum CrashReporting {
    /// What `SWIFT_BACKTRACE` ends with: never a question on the terminal (the backtracer's
    /// default there is to ask for a key for 30 s), no colour, to the standard error, which the
    /// handler points at the report while the backtracer runs; no registers (each is shown with
    /// the memory it points at, which can be anything the player held: a URL, a path), and the
    /// home directory out of the paths.
    static let backtracerSettings = "interactive=no,color=no,output-to=stderr,registers=none,sanitize=yes"

    /// Whether the Swift runtime's backtracer may run at a crash, after our report: only when
    /// it is not armed (the package's static runtime has none) or `SWIFT_BACKTRACE` already ends
    /// with ``backtracerSettings`` (the user asked for its backtrace of every thread in the
    /// report). Armed with its own settings it would ask on the terminal, and the runtime reads
    /// the variable as it loads, before `main`: running the program again with it set would
    /// double the start-up's CPU (measured: 0.088 s against 0.043 s for `--version`), so the
    /// report is then ours alone.
    static func prepareBacktracer() -> Bool {
        guard aether_crash_report_signal_caught(SIGSEGV) != 0 else { return true }
        return getenv("SWIFT_BACKTRACE").map { String(cString: $0).hasSuffix(backtracerSettings) } ?? false
    }

    /// Arms the report for this run of `arguments` (the command line, without the program's
    /// name), the terminal's restoration and the handlers. `runBacktracer`:
    /// ``prepareBacktracer()``'s answer.
    static func arm(arguments: [String], environment: [String: String], runBacktracer: Bool) {
        let directory = StateDirectory.path("crashes", environment: environment)
        let header = "version:\n" + VersionReport.text + "\noptions: " + options(arguments) + "\n"
        aether_crash_report_run_previous_handler(runBacktracer ? 1 : 0)
        guard aether_crash_report_configure(directory, PlayerIdentity.name, header, header.utf8.count) == 0 else { return }
        // The modes the program found the terminal in are what a crash puts back, from the
        // start: an open that takes the keys and the terminal's probe set raw modes before the
        // screen is up (which saves them again).
        aether_terminal_save(STDIN_FILENO)
        aether_terminal_install_crash_handlers()
        CurrentItemWatch.watch { item, info in
            let text = playing(item, info: info)
            aether_crash_report_set_item(text, text.utf8.count)
        }
    }

    /// The command line as the report shows it: what names a file or a URL (a word or an
    /// option's value with a `/` in it, or that names a file here) becomes `…`, so no path of
    /// the user's is written; the config file's options are not on it.
    static func options(_ arguments: [String], exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        func isPath(_ word: Substring) -> Bool { word.contains("/") || (!word.isEmpty && exists(String(word))) }
        let shown = arguments.map { argument -> String in
            let word = Substring(argument)
            if argument.hasPrefix("-"), let equals = word.firstIndex(of: "=") {
                return isPath(word[word.index(after: equals)...]) ? String(word[...equals]) + "…" : argument
            }
            return argument != "-" && isPath(word) ? "…" : argument
        }
        return shown.isEmpty ? "(none)" : TextSanitizer.clean(shown.joined(separator: " "))
    }

    /// What is playing: the item's name (a file's name, a URL's last segment, or its host) and
    /// the probe report of what the player found in it; nil `info`: the item is opening.
    static func playing(_ item: PlaylistItem, info: MediaInfo?) -> String {
        var name = item.displayName
        if PlaylistLoader.isURL(item.source), name == item.source {
            name = URL(string: item.source)?.host ?? "a URL"
        }
        let clean = TextSanitizer.clean(name)
        return info.map { ProbeReport.render($0, heading: "playing: " + clean) } ?? "opening: \(clean)\n"
    }
}
