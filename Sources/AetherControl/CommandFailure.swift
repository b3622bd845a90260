import AetherBase

/// Why a command of the program ends without doing all it was asked: the failures its `run()`
/// throws, typed (`throws(CommandFailure)`). The exit status is a function of the failure
/// (``status``), and the program prints its ``line`` once, at the top, as
/// `aether-tui: line`.
public enum CommandFailure: Error, Sendable, Equatable {
    /// An option, a value or a header given is wrong (ArgumentParser's own refusals end with
    /// the same status).
    case usage(String)
    /// The source, or a file the command reads or writes, cannot be opened, read or written.
    case failed(String)
    /// The command stopped before its end at data it could not read (`probe --packets` at a
    /// read error), or found nothing to play.
    case incomplete(String)
    /// Stopped by a signal (a download: what was fetched is kept).
    case interrupted(String)
    /// A playlist's run that did not end with 0: its tally's status (each item that failed was
    /// said as it failed), or the code `quit N` asked for.
    case ended(RunEnd)

    /// The exit status (``ExitStatus``'s table; a quit's own code as asked).
    public var status: Int32 {
        switch self {
        case .usage, .failed: ExitStatus.failed.rawValue
        case .incomplete: ExitStatus.incomplete.rawValue
        case .interrupted: ExitStatus.interrupted.rawValue
        case .ended(let end): end.code
        }
    }

    /// The one line said on standard error (nil: the run said its lines already).
    public var line: String? {
        switch self {
        case .usage(let line), .failed(let line), .incomplete(let line), .interrupted(let line): line
        case .ended: nil
        }
    }
}

/// How a run of the player over its playlist ends: with the status its tally gives
/// (``ExitStatus/of(played:failed:items:endedEarly:network:)``), or with the code a `quit`
/// command asked for (mpv's `quit [code]`, any number).
public enum RunEnd: Equatable, Sendable {
    case status(ExitStatus)
    case asked(Int32)

    /// The process's exit code.
    public var code: Int32 {
        switch self {
        case .status(let status): status.rawValue
        case .asked(let code): code
        }
    }

    /// Stopped by a signal.
    public var interrupted: Bool { self == .status(.interrupted) }
}

extension StandardStream {
    /// One line of the program's own on standard error: `aether-tui: line`, sanitised (a failure's
    /// line, a warning, an item a playlist's run could not play). The one place the prefix is made.
    public static func say(_ line: String) {
        error("\(PlayerIdentity.name): \(TextSanitizer.clean(line))\n")
    }
}
