import AetherControl
import FoundationEssentials

extension CompletionScript {
    static func bash(_ spec: CompletionSpec) -> String {
        let function = "_" + spec.program.replacing("-", with: "_")
        func list(_ words: [String]) -> String { quoted(words.joined(separator: " ")) }
        var valueCases: [String] = []
        for command in spec.commands {
            for option in command.options {
                guard let value = option.value else { continue }
                let patterns = option.spellings.map { "\(command.name)\\ \($0)" }.joined(separator: "|")
                valueCases.append("        \(patterns)) \(function)_values \(bashKind(value)) \(bashArgument(value)) ;;")
            }
        }
        let options = spec.commands.map { "[\($0.name)]=\(list($0.options.flatMap(\.spellings)))" }
        let valued = spec.commands.map { "[\($0.name)]=\(quoted(" " + $0.valued.joined(separator: " ") + " "))" }
        let operands = spec.commands.map { "[\($0.name)]=\($0.operands.map(bashKind) ?? "none")" }
        let operandWords = spec.commands.compactMap { command in
            command.operands.map { "[\(command.name)]=\(bashArgument($0))" }
        }
        return """
        # bash completion for \(spec.program): made by `\(spec.program) --generate-completion-script bash`
        # from the program's own options; bash-completion loads it from its completions directory.

        # Offers, for the word being completed ($cur), what $1 names: words (the list in $2), the
        # lines command $2 prints, files, directories, free (nothing) or none.
        \(function)_values() {
            local IFS=$'\\n'
            case "$1" in
            words) COMPREPLY+=($(IFS=' '; compgen -W "$2" -- "$cur")) ;;
            command) COMPREPLY+=($(compgen -W "$(eval "$2")" -- "$cur")) ;;
            files|directories)
                compopt -o filenames 2>/dev/null
                if declare -F _filedir >/dev/null; then
                    if [ "$1" = directories ]; then _filedir -d; else _filedir; fi
                elif [ "$1" = directories ]; then
                    COMPREPLY+=($(compgen -d -- "$cur"))
                else
                    COMPREPLY+=($(compgen -f -- "$cur"))
                fi ;;
            esac
        }

        \(function)() {
            local -A options=(\(options.joined(separator: " ")))
            local -A valued=(\(valued.joined(separator: " ")))
            local -A operands=(\(operands.joined(separator: " ")))
            local -A operandArguments=(\(operandWords.joined(separator: " ")))
            local subcommands=\(list(spec.subcommandNames))
            local cur="${COMP_WORDS[COMP_CWORD]}" option="" command="" named="" operand=0 i word
            COMPREPLY=()
            # The subcommand is the first operand when it is one; an option that takes a value
            # takes the next word (bash splits --name=value at '=' into three words).
            for (( i = 1; i < COMP_CWORD; i++ )); do
                word="${COMP_WORDS[i]}"
                if [ "$word" = "=" ]; then (( i + 1 < COMP_CWORD )) && (( i++ )); continue; fi
                case "$word" in
                -*)
                    if [[ "$word" != *=* && "${COMP_WORDS[i+1]}" != "=" \\
                          && "${valued[${command:-\(spec.defaultCommand)}]}" == *" $word "* ]]; then
                        (( i + 1 < COMP_CWORD )) && (( i++ ))
                    fi ;;
                *)
                    if (( operand == 0 )) && [ -z "$command" ] && [[ " $subcommands " == *" $word "* ]]; then
                        command="$word"
                    else
                        (( operand++ ))
                    fi ;;
                esac
            done
            named="$command"; command="${command:-\(spec.defaultCommand)}"
            # An option waiting for its value: `--vo |`, `--vo=|`, `--vo=k|`.
            if [ "$cur" = "=" ]; then
                option="${COMP_WORDS[COMP_CWORD-1]}"; cur=""
            elif (( COMP_CWORD >= 2 )) && [ "${COMP_WORDS[COMP_CWORD-1]}" = "=" ]; then
                option="${COMP_WORDS[COMP_CWORD-2]}"
            elif [[ "$cur" == --*=* ]]; then
                option="${cur%%=*}"; cur="${cur#*=}"
            elif (( COMP_CWORD >= 1 )); then
                option="${COMP_WORDS[COMP_CWORD-1]}"
            fi
            if [[ "$option" == -* ]]; then
                case "$command $option" in
        \(valueCases.joined(separator: "\n"))
                *) option="" ;;
                esac
                [ -n "$option" ] && return 0
            fi
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W "${options[$command]}" -- "$cur"))
                return 0
            fi
            \(function)_values "${operands[$command]}" "${operandArguments[$command]}"
            # A subcommand's name, once the first operand begins one.
            if [ -n "$cur" ] && [ -z "$named" ] && (( operand == 0 )); then
                COMPREPLY+=($(compgen -W "$subcommands" -- "$cur"))
            fi
            return 0
        }

        complete -F \(function) \(spec.program)

        """
    }

    /// The kind `_values` takes: free, words, command, files or directories.
    private static func bashKind(_ values: CompletionSpec.Values) -> String {
        switch values {
        case .free: "free"
        case .words: "words"
        case .files: "files"
        case .directories: "directories"
        case .command: "command"
        }
    }

    /// What `_values` takes after the kind: the words, or the command.
    private static func bashArgument(_ values: CompletionSpec.Values) -> String {
        switch values {
        case .words(let words): quoted(words.joined(separator: " "))
        case .command(let command): quoted(command)
        case .free, .files, .directories: "''"
        }
    }
}
