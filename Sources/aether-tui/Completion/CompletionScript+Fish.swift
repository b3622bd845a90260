import AetherControl
import FoundationEssentials

extension CompletionScript {
    /// fish's: `complete` lines under a condition naming the command the line runs.
    static func fish(_ spec: CompletionSpec) -> String {
        let program = spec.program
        let function = "__" + program.replacing("-", with: "_")
        let defaultCommand = spec.commands.first { $0.name == spec.defaultCommand }
        var lines = ["complete -c \(program) -f"]
        for command in spec.commands where command.name != spec.defaultCommand {
            lines.append("complete -c \(program) -n \(function)_names_a_subcommand -a \(fishQuoted(command.name)) -d \(fishQuoted(command.summary))")
        }
        for command in spec.commands {
            let condition = "-n " + fishQuoted("\(function)_in \(command.name)")
            switch command.operands {
            case .files?, .directories?: lines.append("complete -c \(program) \(condition) -F")
            case .words(let words)?: lines.append("complete -c \(program) \(condition) -a \(fishQuoted(words.joined(separator: " ")))")
            case .command(let command)?: lines.append("complete -c \(program) \(condition) -a \(fishQuoted("(" + command + ")"))")
            case .free?, nil: break
            }
            for option in command.options {
                var line = "complete -c \(program) \(condition)"
                for spelling in option.spellings {
                    if spelling.hasPrefix("--") {
                        line += " -l " + spelling.dropFirst(2)
                    } else {
                        line += (spelling.count == 2 ? " -s " : " -o ") + spelling.dropFirst()
                    }
                }
                switch option.value {
                case nil: break
                case .free?: line += " -x"
                case .words(let words)?: line += " -x -a " + fishQuoted(words.joined(separator: " "))
                case .files?: line += " -r -F"
                case .command(let command)?: line += " -x -a " + fishQuoted("(" + command + ")")
                case .directories?: line += " -x -a " + fishQuoted("(__fish_complete_directories (commandline -ct | string replace -r -- \"^-[^=]*=\" \"\"))")
                }
                lines.append(line + " -d " + fishQuoted(option.summary))
            }
        }
        let valued = (defaultCommand?.valued ?? []).map(fishQuoted).joined(separator: " ")
        return """
        # fish completion for \(program): made by `\(program) --generate-completion-script fish`
        # from the program's own options; fish loads it from its vendor completions directory.

        # The command the line runs (the subcommand when the first operand is one, else
        # \(spec.defaultCommand)), then "named" when the line names it, or "operand" when its first
        # operand is not a subcommand.
        function \(function)_line
            set -l subcommands \(spec.subcommandNames.map(fishQuoted).joined(separator: " "))
            set -l valued \(valued)
            set -l tokens (commandline -opc)
            set -e tokens[1]
            set -l skip 0
            for token in $tokens
                if test $skip = 1
                    set skip 0
                    continue
                end
                switch $token
                    case '-*=*'
                    case '-*'
                        contains -- $token $valued; and set skip 1
                    case '*'
                        if contains -- $token $subcommands
                            echo $token
                            echo named
                        else
                            echo \(spec.defaultCommand)
                            echo operand
                        end
                        return
                end
            end
            echo \(spec.defaultCommand)
        end

        function \(function)_in
            set -l line (\(function)_line)
            test "$line[1]" = "$argv[1]"
        end

        # A line that names no subcommand and has no operand yet, its word begun.
        function \(function)_names_a_subcommand
            set -l line (\(function)_line)
            set -l word (commandline -ct)
            test "$line[1]" = \(spec.defaultCommand); and not set -q line[2]; and test -n "$word"
        end

        \(lines.joined(separator: "\n"))

        """
    }
}
