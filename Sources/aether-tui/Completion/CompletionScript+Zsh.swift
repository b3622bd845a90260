import AetherControl
import FoundationEssentials

extension CompletionScript {
    /// zsh's: one `_arguments` function per command; the first operand of a line that names no
    /// subcommand offers files, and subcommands by name once the word begins one.
    static func zsh(_ spec: CompletionSpec) -> String {
        let function = "_" + spec.program
        let defaultCommand = spec.commands.first { $0.name == spec.defaultCommand }
        let subcommands = spec.commands.map { quoted(zshEscaped($0.name) + ":" + zshEscaped($0.summary)) }
        let commandFunctions = spec.commands.map { command in
            let operands: [String]
            switch command.operands {
            case nil: operands = []
            case let values? where command.name == spec.defaultCommand:
                operands = [quoted("1:operand:\(function)-first"), quoted("*:operand:" + zshAction(values))]
            case let values?: operands = [quoted("*:operand:" + zshAction(values))]
            }
            let specs = command.options.flatMap(zshSpecs) + operands
            return """
            \(function)-\(command.name)() {
                _arguments -S : \\
                    \(specs.joined(separator: " \\\n            "))
            }
            """
        }
        return """
        #compdef \(spec.program)
        # zsh completion for \(spec.program): made by `\(spec.program) --generate-completion-script zsh`
        # from the program's own options; compinit loads it from a directory in $fpath.

        \(commandFunctions.joined(separator: "\n\n"))

        # The first operand of a line that names no subcommand: a file, or a subcommand's name once
        # the word begins one.
        \(function)-first() {
            local -a subcommands=(\(subcommands.joined(separator: " ")))
            _files
            # (After `\(spec.defaultCommand)` itself, the words begin with it: no subcommand comes.)
            [[ -n $PREFIX && $words[1] != \(spec.defaultCommand) ]] && _describe -t commands subcommand subcommands
            return 0
        }

        \(function)() {
            local -a subcommands=(\(spec.subcommandNames.map(quoted).joined(separator: " ")))
            local -a valued=(\((defaultCommand?.valued ?? []).map(quoted).joined(separator: " ")))
            local i=2
            # The subcommand is the first operand when it is one; an option that takes a value
            # takes the next word.
            while (( i < CURRENT )); do
                case $words[i] in
                -*=*) ;;
                -*) (( ${valued[(Ie)$words[i]]} )) && (( i++ )) ;;
                *)
                    if (( ${subcommands[(Ie)$words[i]]} )); then
                        shift $(( i - 1 )) words
                        (( CURRENT -= i - 1 ))
                        \(function)-$words[1]
                        return
                    fi
                    break ;;
                esac
                (( i++ ))
            done
            \(function)-\(spec.defaultCommand)
        }

        \(function) "$@"

        """
    }

    /// An option's `_arguments` specs, one for each spelling: `--vo=[Video output]:vo:(auto …)`.
    private static func zshSpecs(_ option: CompletionSpec.Option) -> [String] {
        option.spellings.map { spelling in
            let repeats = option.repeats ? "*" : ""
            let help = "[" + zshEscaped(option.summary) + "]"
            guard let value = option.value else { return quoted(repeats + spelling + help) }
            let name = spelling.drop { $0 == "-" }
            return quoted(repeats + spelling + "=" + help + ":" + name + ":" + zshAction(value))
        }
    }

    private static func zshAction(_ values: CompletionSpec.Values) -> String {
        switch values {
        case .free: " "
        case .words(let words): "(" + words.map(zshWord).joined(separator: " ") + ")"
        case .files: "_files"
        case .directories: "_files -/"
        case .command(let command): "{compadd -- ${(f)\"$(\(command))\"}}"
        }
    }

    /// A description or a name with a backslash before what `_arguments` and `_describe` read
    /// as syntax there (`[`, `]`, `:`).
    private static func zshEscaped(_ text: String) -> String {
        escaped(text, "[]:\\")
    }

    /// A value of a `(…)` list with a backslash before what ends a word or the list.
    private static func zshWord(_ text: String) -> String {
        escaped(text, " ()[]:\\")
    }

    private static func escaped(_ text: String, _ special: String) -> String {
        var out = ""
        for character in text {
            if special.contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
