import AetherControl
import FoundationEssentials

/// The shell completion scripts (`aether-tui --generate-completion-script bash|zsh|fish`, the
/// flag ArgumentParser gives every program; the package installs its output). Each is made from
/// ``CompletionSpec``, and each completes alike:
/// - the first operand: files and folders, and a subcommand's name once the word begins one;
/// - `--v`: every option of the command beginning so (`play`'s when no subcommand is named);
/// - `--vo ` and `--vo=`: an option's values (an enum's cases; files; folders; nothing for a
///   free value such as a time);
/// - after a subcommand: its options and its operands.
enum CompletionScript {
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    static func make(_ shell: Shell, spec: CompletionSpec = .current) -> String {
        switch shell {
        case .bash: bash(spec)
        case .zsh: zsh(spec)
        case .fish: fish(spec)
        }
    }

    /// The shell a command line asks a script for: `--generate-completion-script SHELL` or
    /// `--generate-completion-script=SHELL` alone; nil when it asks for none. An unknown shell is
    /// a usage failure naming the ones there are.
    static func requested(_ arguments: [String]) throws(CommandFailure) -> Shell? {
        let flag = "--generate-completion-script"
        let name: String
        switch arguments.count {
        case 1 where arguments[0].hasPrefix(flag + "="): name = String(arguments[0].dropFirst(flag.count + 1))
        case 2 where arguments[0] == flag: name = arguments[1]
        default: return nil
        }
        guard let shell = Shell(rawValue: name) else {
            let names = Shell.allCases.map(\.rawValue).joined(separator: ", ")
            throw .usage("\(flag): no completion for '\(name)' (one of: \(names))")
        }
        return shell
    }

    /// `text` in single quotes for bash or zsh (a `'` as `'\''`).
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// `text` in single quotes for fish (`\` and `'` escaped with a backslash).
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
